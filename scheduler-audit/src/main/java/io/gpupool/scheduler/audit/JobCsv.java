package io.gpupool.scheduler.audit;

import io.gpupool.scheduler.journal.JournalRecord;

import io.gpupool.avro.PlacementDecision;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;

/** The recorded history as one CSV row per job (RFC 4180 quoting), for analysis tools. */
public final class JobCsv {
    public static final List<String> COLUMNS = List.of("job_id", "pool", "tenant", "nodes", "gpus_per_node",
            "submit", "start", "end", "queue_delay_ms", "jct_ms", "final_outcome", "placement", "reasons",
            "preemptions");

    private JobCsv() {
    }

    /** The jobs of a history: submits from the journal, times and placements from the recorded decisions. */
    public static List<JobTimes> jobs(final Iterable<JournalRecord> journal, final List<PlacementDecision> recorded) {
        final RecordedDecisions byCause = RecordedDecisions.of(recorded);
        final HistoryBook book = new HistoryBook();
        for (final JournalRecord r : journal) {
            book.entry(r);
            byCause.take(r.partition(), r.offset()).values().forEach(book::decision);
        }
        return book.jobs();
    }

    public static void write(final List<JobTimes> jobs, final PrintWriter out) {
        out.println(String.join(",", COLUMNS));
        for (final JobTimes j : jobs) {
            out.println(String.join(",", List.of(q(j.jobId()), q(j.pool()), q(j.tenant()), Integer.toString(j.nodes()),
                    Integer.toString(j.gpusPerNode()), time(j.submitMs()), time(j.startMs()), time(j.endMs()),
                    num(j.queueDelayMs()), num(j.jctMs()), q(j.finalOutcome()), q(j.placement()), q(j.reasons()),
                    Integer.toString(j.preemptions()))));
        }
        out.flush();
    }

    private static String time(final long ms) {
        return ms < 0 ? "" : Instant.ofEpochMilli(ms).toString();
    }

    private static String num(final long v) {
        return v < 0 ? "" : Long.toString(v);
    }

    static String q(final String s) {
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
            return s;
        }
        return '"' + s.replace("\"", "\"\"") + '"';
    }
}
