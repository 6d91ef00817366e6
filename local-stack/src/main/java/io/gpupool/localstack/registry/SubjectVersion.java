package io.gpupool.localstack.registry;

/**
 * One version of a subject: its number, the global schema id it points to, and whether it was
 * soft-deleted (hidden from lookups and compatibility checks, listed with {@code ?deleted=true}).
 */
record SubjectVersion(String subject, int version, int id, boolean deleted) {
}
