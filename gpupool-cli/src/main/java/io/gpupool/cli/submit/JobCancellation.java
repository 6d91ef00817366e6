package io.gpupool.cli.submit;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.cli.workload.JobCommands;
import java.time.Duration;
import java.util.EnumSet;
import picocli.CommandLine;

/** A cancel command for one job, and the decision it leads to. */
public final class JobCancellation {

    /** What a cancel ends in: dequeued or released (cancelled), or refused (an unknown or finished job). */
    private static final EnumSet<DecisionOutcome> ANSWERS = EnumSet.of(DecisionOutcome.CANCELLED, DecisionOutcome.RELEASED,
            DecisionOutcome.REJECTED);

    private JobCancellation() {
    }

    public static String problem(final String jobId) {
        return JobChecks.JOB_ID.matcher(jobId).matches() ? null
                : "job id '" + jobId + "' is malformed; give the id `gpupool submit` printed (see `gpupool queue`)";
    }

    public static int send(final StackClient stack, final CommandLine.Model.CommandSpec spec, final String jobId,
            final String reason, final boolean await, final Duration timeout) throws InterruptedException {
        return JobSubmission.sendAndMaybeWait(stack, spec,
                JobCommands.cancel(jobId, reason, System.getProperty("user.name", "gpupool") + "@cli"), await, timeout, ANSWERS);
    }
}
