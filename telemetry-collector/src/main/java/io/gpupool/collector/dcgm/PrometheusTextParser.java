package io.gpupool.collector.dcgm;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A tolerant reader of the Prometheus text exposition format as dcgm-exporter writes it: comment
 * lines of any kind (HELP without text included) are skipped, series may have no labels, label
 * values may hold escaped quotes, a trailing timestamp is ignored. A line it cannot read is
 * skipped and counted, never fatal: one odd series must not hide all the others.
 */
public final class PrometheusTextParser {
    private static final Logger LOG = LoggerFactory.getLogger(PrometheusTextParser.class);

    /** DCGM writes int64 "blank" values at or above this to mean "no value". */
    public static final BigDecimal DCGM_INT64_BLANK = new BigDecimal("9223372036854775792");
    /** DCGM's double "blank" values: DCGM_FP64_BLANK (2^47) and the few codes just above it (not found, not supported, ...). */
    private static final BigDecimal DCGM_FP64_BLANK = new BigDecimal("140737488355328");
    private static final BigDecimal DCGM_FP64_BLANK_END = DCGM_FP64_BLANK.add(BigDecimal.valueOf(16));

    /** The series read, and how many lines were not readable. */
    public record Result(List<PromSample> samples, int skippedLines) {
    }

    private PrometheusTextParser() {
    }

    public static Result parse(final String text) {
        final List<PromSample> samples = new ArrayList<>();
        int skipped = 0;
        for (final String raw : text.split("\r?\n")) {
            final String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            try {
                samples.add(parseLine(line));
            } catch (RuntimeException e) {
                skipped++;
                LOG.warn("skipped unreadable metrics line ({}): {}", e.getMessage(), line);
            }
        }
        return new Result(samples, skipped);
    }

    static PromSample parseLine(final String line) {
        int i = 0;
        while (i < line.length() && isNameChar(line.charAt(i))) {
            i++;
        }
        if (i == 0) {
            throw new IllegalArgumentException("no metric name");
        }
        final String name = line.substring(0, i);
        final Map<String, String> labels = new LinkedHashMap<>();
        if (i < line.length() && line.charAt(i) == '{') {
            i = readLabels(line, i + 1, labels);
        }
        final String rest = line.substring(i).trim();
        if (rest.isEmpty()) {
            throw new IllegalArgumentException("no value");
        }
        final String valueText = rest.split("\\s+")[0];
        return new PromSample(name, labels, value(valueText));
    }

    private static int readLabels(final String line, final int from, final Map<String, String> labels) {
        int i = from;
        while (true) {
            while (i < line.length() && (line.charAt(i) == ',' || line.charAt(i) == ' ')) {
                i++;
            }
            if (i >= line.length()) {
                throw new IllegalArgumentException("unterminated labels");
            }
            if (line.charAt(i) == '}') {
                return i + 1;
            }
            final int eq = line.indexOf('=', i);
            if (eq < 0) {
                throw new IllegalArgumentException("label without '='");
            }
            final String key = line.substring(i, eq).trim();
            i = eq + 1;
            while (i < line.length() && line.charAt(i) == ' ') {
                i++;
            }
            if (i >= line.length() || line.charAt(i) != '"') {
                throw new IllegalArgumentException("label value not quoted");
            }
            final StringBuilder value = new StringBuilder();
            i++;
            while (i < line.length() && line.charAt(i) != '"') {
                char c = line.charAt(i);
                if (c == '\\' && i + 1 < line.length()) {
                    i++;
                    c = line.charAt(i);
                    value.append(c == 'n' ? '\n' : c);
                } else {
                    value.append(c);
                }
                i++;
            }
            if (i >= line.length()) {
                throw new IllegalArgumentException("unterminated label value");
            }
            labels.put(key, value.toString());
            i++;
        }
    }

    /** A number, or null for NaN, infinities and DCGM blank sentinels. */
    static Double value(final String text) {
        switch (text) {
            case "NaN":
            case "+Inf":
            case "-Inf":
            case "Inf":
                return null;
            default:
                break;
        }
        final BigDecimal exact = new BigDecimal(text);
        if (exact.compareTo(DCGM_INT64_BLANK) >= 0) {
            return null;
        }
        if (exact.compareTo(DCGM_FP64_BLANK) >= 0 && exact.compareTo(DCGM_FP64_BLANK_END) < 0) {
            return null;
        }
        return exact.doubleValue();
    }

    private static boolean isNameChar(final char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == ':';
    }
}
