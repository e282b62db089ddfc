/**
 * A parse Worker that fails while loading, as one would whose modules are missing from a
 * broken installation: it never becomes ready and never takes a job.
 */
throw new Error("this parse Worker cannot load");
