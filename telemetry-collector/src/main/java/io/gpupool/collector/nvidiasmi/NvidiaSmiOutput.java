package io.gpupool.collector.nvidiasmi;

import io.gpupool.collector.gpu.GpuSnapshot;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads saved nvidia-smi output: either plain {@code --query-gpu} csv (one snapshot) or a capture
 * file with {@code # $ <command>} sections, of which every {@code --query-gpu} section becomes one
 * snapshot. A headerless section takes its field order from its own command line.
 */
public final class NvidiaSmiOutput {
    private static final Pattern QUERY = Pattern.compile("--query-gpu[= ](\\S+)");
    private static final Pattern FORMAT = Pattern.compile("--format[= ](\\S+)");

    private NvidiaSmiOutput() {
    }

    public static List<GpuSnapshot> read(final String label, final String text) {
        if (!CaptureSections.isCapture(text)) {
            return List.of(QueryGpuCsvParser.collectorOrder().parse(label, text));
        }
        final List<GpuSnapshot> snapshots = new ArrayList<>();
        for (final CaptureSections.Section section : CaptureSections.split(text)) {
            final Matcher query = QUERY.matcher(section.command());
            if (!section.command().contains("nvidia-smi") || !query.find()) {
                continue;
            }
            final List<String> fields = Arrays.asList(query.group(1).split(","));
            final Matcher format = FORMAT.matcher(section.command());
            final QueryGpuCsvParser parser = format.find() && format.group(1).contains("noheader")
                    ? new QueryGpuCsvParser(fields)
                    : QueryGpuCsvParser.collectorOrder();
            snapshots.add(parser.parse(label + " section at line " + section.firstLine(), section.body()));
        }
        if (snapshots.isEmpty()) {
            throw new IllegalArgumentException(label + ": a capture file without any 'nvidia-smi --query-gpu' section");
        }
        return snapshots;
    }
}
