package io.gpupool.scheduler.core;

/**
 * A deliberate engine failure, for drills and tests: placing job {@code jobId} throws after {@code parts} of
 * its parts have taken their GPUs, mid-gang, the way an engine bug would. Set with the engine setting
 * {@code failpoint.allocate=JOB:PARTS}; it exists so that the all-or-nothing apply of journal entries can be
 * proven on the real engine and the real pipeline. Never set it in production.
 *
 * @param jobId the job whose placement fails ("" for none)
 * @param parts how many of its parts are allocated before the failure
 */
public record Failpoint(String jobId, int parts) {
    public static final Failpoint NONE = new Failpoint("", 0);
    static final String SETTING = "failpoint.allocate";

    public Failpoint {
        if (jobId == null || parts < 0) {
            throw new IllegalArgumentException("failpoint needs a job id and parts >= 0");
        }
    }

    /** {@code JOB:PARTS}, as the setting is written. */
    static Failpoint parse(final String text) {
        if (text == null || text.isBlank()) {
            return NONE;
        }
        final int colon = text.lastIndexOf(':');
        try {
            if (colon <= 0) {
                throw new NumberFormatException("no ':'");
            }
            return new Failpoint(text.substring(0, colon).trim(), Integer.parseInt(text.substring(colon + 1).trim()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("setting " + SETTING + "=" + text + ": expected JOB_ID:PARTS, e.g. job-7:1", e);
        }
    }

    /** As the setting is written ("" for none). */
    String text() {
        return jobId.isEmpty() ? "" : jobId + ":" + parts;
    }

    /** Throws when the part about to be allocated is the one this failpoint stops at. */
    void beforePart(final String job, final int part) {
        if (part == parts && !jobId.isEmpty() && jobId.equals(job)) {
            throw new IllegalStateException("failpoint " + SETTING + ": placing " + job + " failed after " + part
                    + " part(s) were allocated");
        }
    }
}
