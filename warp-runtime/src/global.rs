//! Global-memory buffers and PTX `atom` operations, shared by all warps of a launch.
