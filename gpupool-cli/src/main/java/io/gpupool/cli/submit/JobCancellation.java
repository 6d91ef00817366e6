package io.gpupool.cli.submit;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.avro.DecisionOutcome;
import io.gpupool.cli.config.ExitCodes;
import io.gpupool.cli.workload.JobCommands;
import io.gpupool.scheduler.query.QueryClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import picocli.CommandLine;

/**
 * A cancel command for one job, and the decision it leads to. The scheduler is asked first: a cancel of a
 * job it does not know, or of one that has ended, changes nothing and gets no decision, so waiting for one
 * would only time out.
 */
public final class JobCancellation {

    /** What a cancel ends in: dequeued or released (cancelled), or refused. */
    private static final EnumSet<DecisionOutcome> ANSWERS = EnumSet.of(DecisionOutcome.CANCELLED, DecisionOutcome.RELEASED,
            DecisionOutcome.REJECTED);
    /** A job's state, as the query API names it, once it has ended (engine states and last decision outcomes). */
    private static final Set<String> ENDED = Set.of("completed", "failed", "cancelled", "rejected", "evicted", "released");
    /** A job submitted an instant ago may not be in the scheduler's view yet: ask once more after this. */
    private static final Duration NOT_SEEN_YET = Duration.ofSeconds(1);

    private JobCancellation() {
    }

    public static String problem(final String jobId) {
        return JobChecks.JOB_ID.matcher(jobId).matches() ? null
                : "job id '" + jobId + "' is malformed; give the id `gpupool submit` printed (see `gpupool queue`)";
    }

    public static int send(final StackClient stack, final CommandLine.Model.CommandSpec spec, final String jobId,
            final String reason, final boolean await, final Duration timeout) throws InterruptedException {
        final PrintWriter err = spec.commandLine().getErr();
        final Optional<QueryClient> scheduler = stack.scheduler();
        if (scheduler.isPresent()) {
            final Optional<ExitCodes> refused = refusal(scheduler.get(), jobId, stack.credentialTenant(), err);
            if (refused.isPresent()) {
                return refused.get().code();
            }
        }
        return JobSubmission.sendAndMaybeWait(stack, spec,
                JobCommands.cancel(jobId, reason, System.getProperty("user.name", "gpupool") + "@cli"),
                await ? new JobSubmission.Wait(d -> ANSWERS.contains(d.getOutcome()),
                        d -> d.getOutcome() == DecisionOutcome.REJECTED ? ExitCodes.REFUSED : ExitCodes.OK, "been cancelled", null)
                        : null, timeout);
    }

    /** Why the cancel is not sent (said on stderr), or empty when it should go out. */
    private static Optional<ExitCodes> refusal(final QueryClient scheduler, final String jobId,
            final Optional<String> credentialTenant, final PrintWriter err) throws InterruptedException {
        final JsonNode job;
        try {
            job = lookUp(scheduler, jobId);
        } catch (QueryClient.QueryException e) {
            if (e.status() == 404) {
                err.printf("gpupool cancel: no job %s: the scheduler does not know it (a typo? `gpupool queue` lists "
                        + "waiting jobs; jobs that ended long ago are forgotten)%n", jobId);
                err.flush();
                return Optional.of(ExitCodes.NOT_FOUND);
            }
            err.printf("gpupool cancel: cannot check %s with the scheduler (%s); sending the cancel anyway%n", jobId,
                    e.getMessage());
            err.flush();
            return Optional.empty();
        }
        final String owner = job.path("tenant").asText("");
        if (credentialTenant.isPresent() && !owner.isEmpty() && !owner.equals(credentialTenant.get())) {
            // the scheduler would refuse it (dead-lettered, no decision): say so now instead of waiting for none
            err.printf("gpupool cancel: job %s is tenant %s's; these credentials are tenant %s's, and the scheduler"
                    + " refuses a tenant's cancel of another tenant's job%n", jobId, owner, credentialTenant.get());
            err.flush();
            return Optional.of(ExitCodes.REFUSED);
        }
        final String state = job.path("state").asText();
        if (!hasEnded(job)) {
            return Optional.empty();
        }
        final JsonNode why = job.path("reason");
        err.printf("gpupool cancel: job %s has already ended (%s%s): nothing to cancel%n", jobId, state,
                why.hasNonNull("code") ? ", " + why.path("code").asText() : "");
        err.flush();
        return Optional.of(ExitCodes.REFUSED);
    }

    /** Whether a job, as the query API describes it, has ended. */
    public static boolean hasEnded(final JsonNode job) {
        return ENDED.contains(job.path("state").asText());
    }

    private static JsonNode lookUp(final QueryClient scheduler, final String jobId) throws InterruptedException {
        try {
            return scheduler.job(jobId);
        } catch (QueryClient.QueryException e) {
            if (e.status() != 404) {
                throw e;
            }
            Thread.sleep(NOT_SEEN_YET.toMillis());
            return scheduler.job(jobId);
        }
    }
}
