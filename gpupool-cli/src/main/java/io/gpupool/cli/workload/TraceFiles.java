package io.gpupool.cli.workload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reads a trace file, telling its format by its header: the Philly (Pollux) CSV or the Alibaba openb pod list. */
public final class TraceFiles {

    private TraceFiles() {
    }

    /** The trace's GPU jobs in arrival order, the first arriving at 0; at most {@code limit} (0 = all). */
    public static List<TimedJob> read(final Path file, final String pool, final String runTag, final int limit)
            throws IOException {
        return read(file, pool, runTag, limit, 0);
    }

    /**
     * As {@link #read(Path, String, String, int)}, skipping the jobs that arrive in the first {@code skipMillis}
     * of the trace (a sparse lead-in, e.g. Philly's first 20 days); the first job left arrives at 0.
     */
    public static List<TimedJob> read(final Path file, final String pool, final String runTag, final int limit,
            final long skipMillis) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("--trace " + file + " is not a file; give a Philly CSV (e.g. "
                    + "philly-pollux.csv) or an Alibaba openb pod list (openb_pod_list_default.csv)");
        }
        final CsvTable t = CsvTable.read(file);
        final List<TimedJob> jobs;
        if (t.hasColumns(PhillyTrace.COLUMNS)) {
            jobs = PhillyTrace.jobs(t, pool, runTag);
        } else if (t.hasColumns(OpenbTrace.COLUMNS)) {
            jobs = OpenbTrace.jobs(t, pool, runTag);
        } else {
            throw new IllegalArgumentException("--trace " + file + ": unknown format; the header must have the Philly columns "
                    + String.join(",", PhillyTrace.COLUMNS) + " or the openb pod list columns "
                    + String.join(",", OpenbTrace.COLUMNS));
        }
        final List<TimedJob> kept = new ArrayList<>();
        long base = -1;
        for (final TimedJob j : jobs) {
            if (j.arrivalMillis() < skipMillis) {
                continue;
            }
            if (base < 0) {
                base = j.arrivalMillis();
            }
            kept.add(new TimedJob(j.arrivalMillis() - base, j.jobId(), j.request()));
            if (limit > 0 && kept.size() == limit) {
                break;
            }
        }
        return kept;
    }
}
