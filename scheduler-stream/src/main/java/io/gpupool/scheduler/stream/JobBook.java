package io.gpupool.scheduler.stream;

/** Where the placer keeps {@link JobRecord}s: a state store in the application, a map in a replay. */
interface JobBook {
    JobRecord get(String jobId);

    void put(String jobId, JobRecord record);

    /** A book in memory (offline replay and tests). */
    static JobBook inMemory() {
        final java.util.Map<String, JobRecord> m = new java.util.HashMap<>();
        return new JobBook() {
            @Override
            public JobRecord get(final String jobId) {
                return m.get(jobId);
            }

            @Override
            public void put(final String jobId, final JobRecord record) {
                m.put(jobId, record);
            }
        };
    }
}
