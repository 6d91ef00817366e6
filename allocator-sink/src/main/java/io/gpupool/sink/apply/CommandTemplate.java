package io.gpupool.sink.apply;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The command line an exec sink runs for a job, e.g. {@code docker run --rm --gpus "device={gpuUuids}"
 * IMAGE {command}}, {@code srun -w {node} {command}} or {@code /opt/run-job.sh {jobId}}. Each element
 * is one argv word. A word that is exactly {@code {command}} becomes the job's command and arguments,
 * {@code {args}} only its arguments; inside words, {@code {jobId} {node} {gpus} {gpuUuids} {jobName}
 * {tenant} {rank} {decisionId}} are replaced. No shell is involved, so nothing is re-split or expanded.
 */
public final class CommandTemplate {

    public static final String COMMAND = "{command}";
    public static final String ARGS = "{args}";

    private final List<String> words;

    public CommandTemplate(final List<String> words) {
        if (words.isEmpty()) {
            throw new IllegalArgumentException("a command template needs at least one word; the default is {command}");
        }
        this.words = List.copyOf(words);
    }

    /** Runs the job's own command as it is. */
    public static CommandTemplate jobCommand() {
        return new CommandTemplate(List.of(COMMAND));
    }

    /** Splits a template given as one string on whitespace (no quoting; use the list form for words with spaces). */
    public static CommandTemplate parse(final String text) {
        return new CommandTemplate(List.of(text.trim().split("\\s+")));
    }

    public List<String> words() {
        return words;
    }

    /** The argv for a part; fails (not worth retrying) when the result has no program to run. */
    public List<String> argv(final JobPart part) {
        final Map<String, String> values = Map.of(
                "{jobId}", part.jobId(),
                "{node}", part.nodeId(),
                "{gpus}", ExecEnvironment.cudaVisibleDevices(part),
                "{gpuUuids}", String.join(",", part.gpuUuids()),
                "{jobName}", part.jobName() == null ? "" : part.jobName(),
                "{tenant}", part.tenant() == null ? "" : part.tenant(),
                "{rank}", Integer.toString(part.rank()),
                "{decisionId}", part.decisionId());
        final List<String> argv = new ArrayList<>();
        for (final String w : words) {
            if (w.equals(COMMAND)) {
                argv.addAll(part.command());
                argv.addAll(part.args());
            } else if (w.equals(ARGS)) {
                argv.addAll(part.args());
            } else {
                String out = w;
                for (final Map.Entry<String, String> e : values.entrySet()) {
                    out = out.replace(e.getKey(), e.getValue());
                }
                argv.add(out);
            }
        }
        if (argv.isEmpty() || argv.get(0).isBlank()) {
            throw new PermanentApplyException("job " + part.jobId() + " has no command to run (template "
                    + String.join(" ", words) + ")");
        }
        return argv;
    }
}
