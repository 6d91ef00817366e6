package io.gpupool.cli;

import io.gpupool.avro.PlacementDecision;
import io.gpupool.cli.history.HistorySource;
import io.gpupool.scheduler.audit.JobCsv;
import io.gpupool.scheduler.journal.JournalRecord;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gpupool export}: the recorded history as a job-level CSV. */
@Command(name = "export", mixinStandardHelpOptions = true,
        description = {"Exports the recorded history as CSV, one row per job.",
            "Columns: job_id, pool, tenant, nodes, gpus_per_node,",
            "submit, start, end (ISO-8601), queue_delay_ms, jct_ms, final_outcome, placement, reasons, preemptions."})
public final class ExportCommand implements Callable<Integer> {

    @Mixin
    HistorySource source;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "Write the CSV here (default: stdout).")
    Path output;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        try (HistorySource.Opened h = source.open(spec.commandLine())) {
            final List<PlacementDecision> decisions = h.history.decisions(source.pool);
            final Iterable<JournalRecord> journal = () -> h.history.journal(source.pool, Map.of());
            final var jobs = JobCsv.jobs(journal, decisions);
            if (output == null) {
                JobCsv.write(jobs, spec.commandLine().getOut());
            } else {
                try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(output, StandardCharsets.UTF_8))) {
                    JobCsv.write(jobs, w);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot write " + output, e);
                }
                spec.commandLine().getOut().printf("jobs=%d file=%s%n", jobs.size(), output);
                spec.commandLine().getOut().flush();
            }
            return 0;
        }
    }
}
