package io.gpupool.localstack.registry;

/** What a registry user may do: read (and look up, and test compatibility), or also change. */
public enum RegistryRole {
    /** GET anything; look a schema up; test a schema's compatibility. */
    READ,
    /** Also register schemas, change compatibility, delete. */
    ADMIN
}
