package io.gpupool.simulator.trace;

import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Reads the Philly trace (Pollux's processing: timestamp, duration, num_gpus, gpu_time, cluster)
 * and keeps the jobs submitted inside a window, sorted by submission (ties by trace line).
 */
public final class PhillyTraceReader {

    private static final List<String> REQUIRED = List.of("timestamp", "duration", "num_gpus", "cluster");
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private PhillyTraceReader() {
    }

    /** Jobs submitted in [from, until). */
    public static List<PhillyJob> read(final Path file, final Instant from, final Instant until) {
        final List<PhillyJob> jobs = new ArrayList<>();
        CsvFile.forEachRow(file, REQUIRED, row -> {
            final long submit = parseTimestamp(row);
            final double duration = row.requiredDouble("duration");
            if (duration < 0) {
                throw row.error("negative duration " + duration);
            }
            final long gpus = row.requiredLong("num_gpus");
            if (gpus <= 0 || gpus > 100_000) {
                throw row.error("num_gpus must be positive, was " + gpus);
            }
            final String cluster = row.requiredText("cluster");
            if (submit >= from.getEpochSecond() && submit < until.getEpochSecond()) {
                jobs.add(new PhillyJob("philly-" + row.line(), submit, Math.round(duration), (int) gpus, cluster));
            }
        });
        jobs.sort(Comparator.comparingLong(PhillyJob::submitSecond)
                .thenComparingInt(job -> Integer.parseInt(job.id().substring("philly-".length()))));
        return List.copyOf(jobs);
    }

    private static long parseTimestamp(final CsvRow row) {
        final String text = row.requiredText("timestamp");
        try {
            return LocalDateTime.parse(text, TIMESTAMP).toEpochSecond(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            throw row.error("timestamp is not 'yyyy-MM-dd HH:mm:ss': '" + text + "'");
        }
    }
}
