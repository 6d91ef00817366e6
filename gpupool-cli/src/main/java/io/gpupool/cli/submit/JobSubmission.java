package io.gpupool.cli.submit;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobRequest;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.cli.workload.JobCommandProducer;
import io.gpupool.cli.workload.JobCommands;
import io.gpupool.topics.Topic;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine;

/** A checked job request with its id, ready to send: -f file first, flags on top, defaults for what is left. */
public final class JobSubmission {

    static final int REJECTED_EXIT = 2;
    static final int TIMEOUT_EXIT = 4;

    private final String jobId;
    private final JobRequest request;

    private JobSubmission(final String jobId, final JobRequest request) {
        this.jobId = jobId;
        this.request = request;
    }

    /**
     * @throws IllegalArgumentException with the fix, when the file or the flags make no valid job
     */
    public static JobSubmission build(final Path file, final String jobIdFlag, final JobFlags flags, final String user) {
        final JobFile fromFile = file == null ? null : JobFile.read(file);
        final JobRequest.Builder b = fromFile == null ? JobRequest.newBuilder() : fromFile.request();
        final Instant now = Instant.now();
        flags.applyTo(b, now);
        if (!b.hasTenant()) {
            b.setTenant(user.replaceAll("[^A-Za-z0-9._-]", "_"));
        }
        if (!b.hasPool()) {
            b.setPool("default");
        }
        final String id = jobIdFlag != null ? jobIdFlag
                : fromFile != null && fromFile.jobId() != null ? fromFile.jobId()
                : generatedId(b.getTenant(), now);
        if (!b.hasName()) {
            b.setName(id);
        }
        final JobRequest request = b.build();
        final String problem = JobChecks.problem(id, request);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        return new JobSubmission(id, request);
    }

    private static String generatedId(final String tenant, final Instant now) {
        final String stamp = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC).format(now);
        final String safeTenant = tenant.replaceAll("[^A-Za-z0-9._-]", "_");
        return (safeTenant.isEmpty() ? "job" : safeTenant) + "-" + stamp + "-"
                + Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36 * 36 * 36), 36);
    }

    public String jobId() {
        return jobId;
    }

    public JobRequest request() {
        return request;
    }

    /** Sends the submit; prints the job id, and with {@code await} the first decision. Returns the exit code. */
    public int send(final StackClient stack, final CommandLine.Model.CommandSpec spec, final boolean await,
            final Duration timeout) throws InterruptedException {
        final JobCommand command = JobCommands.submit(jobId, request, System.getProperty("user.name", "gpupool") + "@cli");
        return sendAndMaybeWait(stack, spec, command, await, timeout, Set.of());
    }

    /** Shared by submit and cancel: the watch opens before the send, so the decision cannot be missed. */
    static int sendAndMaybeWait(final StackClient stack, final CommandLine.Model.CommandSpec spec, final JobCommand command,
            final boolean await, final Duration timeout, final Set<DecisionOutcome> outcomes) throws InterruptedException {
        final Properties client = stack.client();
        final String registry = stack.registry(spec.commandLine());
        final PrintWriter out = spec.commandLine().getOut();
        try (DecisionWatch watch = await ? new DecisionWatch(client, registry, stack.topic(spec, Topic.DECISIONS)) : null;
             JobCommandProducer producer = new JobCommandProducer(client, registry, stack.topic(spec, Topic.JOBS))) {
            producer.sendAndWait(command);
            out.println(command.getJobId());
            out.flush();
            if (watch == null) {
                return 0;
            }
            final Optional<PlacementDecision> d = watch.await(command.getJobId(), outcomes, timeout);
            if (d.isEmpty()) {
                spec.commandLine().getErr().printf("gpupool %s: no decision for %s within %d s; is the scheduler running? "
                        + "(`gpupool explain %s` shows where it is)%n", spec.name(), command.getJobId(), timeout.toSeconds(),
                        command.getJobId());
                spec.commandLine().getErr().flush();
                return TIMEOUT_EXIT;
            }
            DecisionText.print(out, d.get());
            return d.get().getOutcome() == DecisionOutcome.REJECTED ? REJECTED_EXIT : 0;
        }
    }
}
