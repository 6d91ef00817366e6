package io.gpupool.bench.pipeline;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The figures of repeated runs as {@code NAME_min}, {@code NAME_median} and {@code NAME_max}: these machines are
 * noisy, so one run says little. A figure that not every run printed (a search step only some runs reached) is
 * left out; a run prints its own figures as it ends.
 */
final class RepeatSummary {
    private RepeatSummary() {
    }

    static Map<String, String> of(final List<Map<String, String>> runs) {
        final Map<String, String> summary = new LinkedHashMap<>();
        for (final String name : runs.get(0).keySet()) {
            final List<String> values = new ArrayList<>();
            for (final Map<String, String> run : runs) {
                if (run.containsKey(name)) {
                    values.add(run.get(name));
                }
            }
            if (values.size() == runs.size() && values.stream().allMatch(RepeatSummary::numeric)) {
                final double[] sorted = values.stream().mapToDouble(Double::parseDouble).sorted().toArray();
                final boolean whole = values.stream().noneMatch(v -> v.contains("."));
                summary.put(name + "_min", format(sorted[0], whole));
                summary.put(name + "_median", format(median(sorted), whole));
                summary.put(name + "_max", format(sorted[sorted.length - 1], whole));
            }
        }
        summary.put("runs", Integer.toString(runs.size()));
        return summary;
    }

    private static double median(final double[] sorted) {
        final int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static boolean numeric(final String value) {
        return value.matches("-?\\d+(\\.\\d+)?");
    }

    private static String format(final double value, final boolean whole) {
        return whole ? Long.toString(Math.round(value)) : String.format(Locale.ROOT, "%.3f", value);
    }
}
