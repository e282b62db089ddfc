/**
 * The dependency index (docs/dependencies.md): the external packages a repository's source
 * imports, each indexed statically into a target of its own, one per package version.
 */
export {
  type DependencyOptions,
  type DependencyOwner,
  dependencyStatePath,
  dependencyStateStamp,
  dependencyStatus,
  type DependencySummary,
  loadDependencyState,
  refreshDependencies,
  refreshDependencySummary,
} from "./index.ts";
export type {
  DependencyPackage,
  DependencyProblem,
  DependencyRecord,
  DependencyState,
  Ecosystem,
} from "./types.ts";
export { LIMITS as DEPENDENCY_LIMITS } from "./types.ts";
