package io.gpupool.cli.submit;

import io.gpupool.avro.JobRequest;
import io.gpupool.topics.Topic;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;
import picocli.CommandLine;

/**
 * What {@code submit} does between parsing and sending: GPU model aliases resolved to the pool's models, the
 * job checked against the pool's inventory ({@link PoolCheck}), and a note when the local sink will not run
 * the job's command. Notes go to stderr, so that stdout stays the job id and the decision.
 */
public final class SubmitCheck {

    private static final Duration INVENTORY_READ = Duration.ofSeconds(10);

    /**
     * The submission to send (models resolved), or why it is refused (then nothing is sent); {@code placedNote}
     * is said with a PLACED decision (null: nothing to say).
     */
    public record Result(JobSubmission submission, String refusal, String placedNote) {
    }

    private SubmitCheck() {
    }

    /**
     * @throws IllegalArgumentException for an ambiguous model alias (a usage error)
     */
    public static Result run(final JobSubmission submission, final StackClient stack, final CommandLine.Model.CommandSpec spec,
            final boolean check) {
        final PrintWriter err = spec.commandLine().getErr();
        final Properties client = stack.client();
        PoolInventory inventory = null;
        if (check) {
            try {
                inventory = PoolInventory.read(client, stack.registry(spec.commandLine()), stack.topic(spec, Topic.INVENTORY),
                        submission.request().getPool(), INVENTORY_READ);
            } catch (RuntimeException e) {
                if (e instanceof CommandLine.PicocliException) {
                    throw e;
                }
                err.printf("gpupool submit: not checked against the pool: cannot read its inventory (%s)%n", e.getMessage());
            }
        }
        JobSubmission out = submission;
        final JobRequest r = submission.request();
        if (!r.getGpuModels().isEmpty()) {
            final GpuModels.Resolved models = GpuModels.resolve(r.getGpuModels(),
                    inventory != null && !inventory.models().isEmpty() ? inventory.models() : GpuModels.COMMON);
            models.notes().forEach(n -> err.println("gpupool submit: " + n));
            out = submission.withModels(models.models());
        }
        if (inventory != null) {
            final Optional<String> refusal = PoolCheck.refusal(out.jobId(), out.request(), inventory);
            if (refusal.isPresent()) {
                err.flush();
                return new Result(null, refusal.get(), null);
            }
        }
        final boolean hasCommand = r.getExec() != null && !r.getExec().getCommand().isEmpty();
        final Optional<Boolean> runs = LocalSink.runsCommands(stack.dataDir(), String.valueOf(client.get("bootstrap.servers")));
        String placedNote = null;
        if (hasCommand && runs.isPresent()) {
            err.println(runs.get()
                    ? "gpupool submit: the command runs as a process on the local sink; its output: gpupool logs " + out.jobId()
                    : "gpupool submit: note: the local sink simulates jobs (`gpupool up` without --exec-jobs): the command will "
                            + "not run, the job only holds its GPUs for its runtime; `gpupool up --exec-jobs` runs commands");
            placedNote = runs.get() ? null : "simulated: the local sink does not run the command (gpupool up --exec-jobs does)";
        }
        err.flush();
        return new Result(out, null, placedNote);
    }

    /** The commented example job file {@code submit --example} prints. */
    public static String exampleJobFile() {
        try (InputStream in = SubmitCheck.class.getResourceAsStream("example-job.yaml")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
