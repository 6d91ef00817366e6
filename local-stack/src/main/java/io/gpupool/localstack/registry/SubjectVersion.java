package io.gpupool.localstack.registry;

/** One version of a subject: its number and the global schema id it points to. */
record SubjectVersion(String subject, int version, int id) {
}
