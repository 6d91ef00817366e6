package io.gpupool.cli.submit;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobRequest;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.cli.config.ExitCodes;
import io.gpupool.cli.workload.JobCommandProducer;
import io.gpupool.cli.workload.JobCommands;
import io.gpupool.topics.Topic;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.Predicate;
import picocli.CommandLine;

/** A checked job request with its id, ready to send: -f file first, flags on top, defaults for what is left. */
public final class JobSubmission {

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
        final boolean wholeGpus = flags.gpusPerNode != null || b.hasGpusPerNode();
        final boolean share = flags.gpuMilli != null || b.getGpuMilli() != null;
        if (wholeGpus && share) {
            throw new IllegalArgumentException("--gpus and --gpu-milli both given: --gpu-milli M asks for a share of one GPU "
                    + "instead of whole GPUs; give one of them (e.g. --gpu-milli 250 alone for a quarter of a GPU)");
        }
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

    /** The same submission asking for these GPU models (full names, once aliases are resolved). */
    JobSubmission withModels(final List<String> models) {
        return new JobSubmission(jobId, JobRequest.newBuilder(request).setGpuModels(models).build());
    }

    public JobRequest request() {
        return request;
    }

    /** Sends the submit; prints the job id, and when waiting the decision that ends the wait. Returns the exit code. */
    public int send(final StackClient stack, final CommandLine.Model.CommandSpec spec, final WaitFor waitFor,
            final Duration timeout, final String placedNote) throws InterruptedException {
        final JobCommand command = JobCommands.submit(jobId, request, System.getProperty("user.name", "gpupool") + "@cli");
        return sendAndMaybeWait(stack, spec, command,
                waitFor == null ? null : new Wait(waitFor::endsAt, waitFor::exitCode, waitFor.label(), placedNote), timeout);
    }

    /**
     * What a command waits for after sending: the decision that ends the wait, the exit code it gives, and a
     * note printed as {@code note=} with a PLACED decision (null: none).
     */
    record Wait(Predicate<PlacementDecision> ends, Function<PlacementDecision, ExitCodes> exitCode, String what,
                String placedNote) {
    }

    /** Shared by submit and cancel: the watch opens before the send, so the decision cannot be missed. */
    static int sendAndMaybeWait(final StackClient stack, final CommandLine.Model.CommandSpec spec, final JobCommand command,
            final Wait wait, final Duration timeout) throws InterruptedException {
        final Properties client = stack.client();
        final String registry = stack.registry(spec.commandLine());
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        try (DecisionWatch watch = wait != null ? new DecisionWatch(client, registry, stack.topic(spec, Topic.DECISIONS)) : null;
             JobCommandProducer producer = new JobCommandProducer(client, registry, stack.jobsTopic(spec))) {
            producer.sendAndWait(command);
            out.println(command.getJobId());
            out.flush();
            if (watch == null) {
                return ExitCodes.OK.code();
            }
            final List<PlacementDecision> passed = new ArrayList<>();
            final Optional<PlacementDecision> d = watch.await(command.getJobId(), wait.ends(), p -> {
                passed.add(p);
                // decisions on the way (QUEUED, PLACED before it finishes) as one line each, on stderr
                err.printf("gpupool %s: %s %s: %s%n", spec.name(), p.getOutcome(), p.getReasonCode(), p.getMessage());
                err.flush();
            }, timeout);
            if (d.isEmpty()) {
                if (passed.isEmpty()) {
                    err.printf("gpupool %s: no decision for %s within %d s; is the scheduler running? "
                            + "(`gpupool explain %s` shows where it is)%n", spec.name(), command.getJobId(), timeout.toSeconds(),
                            command.getJobId());
                } else {
                    err.printf("gpupool %s: %s has not %s within %d s (last decision: %s); it goes on: `gpupool explain %s`%n",
                            spec.name(), command.getJobId(), wait.what(), timeout.toSeconds(),
                            passed.get(passed.size() - 1).getOutcome(), command.getJobId());
                }
                err.flush();
                return ExitCodes.NO_ANSWER.code();
            }
            DecisionText.print(out, d.get());
            if (wait.placedNote() != null && d.get().getOutcome() == DecisionOutcome.PLACED) {
                out.println("note=" + wait.placedNote());
                out.flush();
            }
            return wait.exitCode().apply(d.get()).code();
        }
    }
}
