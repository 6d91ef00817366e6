package io.gpupool.collector.nvidiasmi;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns one nvidia-smi cell into a typed value, or null when the cell holds no value. A trailing
 * unit ("81559 MiB", "69.85 W", "0 %") is stripped, so the same code reads {@code nounits} and
 * plain csv. A cell that is neither a value nor a known no-value form raises, so the caller can
 * skip it with a warning instead of inventing a number.
 */
final class CellValues {
    private static final Pattern NUMBER_WITH_UNIT =
            Pattern.compile("^([-+]?[0-9]*\\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\\s*(?:[A-Za-z%/]+)?$");

    private CellValues() {
    }

    static String text(final String cell) {
        return NoValue.is(cell) ? null : cell.trim();
    }

    static Double decimal(final String cell) {
        if (NoValue.is(cell)) {
            return null;
        }
        final Matcher m = NUMBER_WITH_UNIT.matcher(cell.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a number: '" + cell.trim() + "'");
        }
        return Double.valueOf(m.group(1));
    }

    static Long whole(final String cell) {
        final Double d = decimal(cell);
        return d == null ? null : Math.round(d);
    }

    static Integer integer(final String cell) {
        final Long l = whole(cell);
        return l == null ? null : Math.toIntExact(l);
    }

    static Boolean yesNo(final String cell) {
        if (NoValue.is(cell)) {
            return null;
        }
        switch (cell.trim().toLowerCase(Locale.ROOT)) {
            case "yes":
            case "true":
            case "1":
                return Boolean.TRUE;
            case "no":
            case "false":
            case "0":
                return Boolean.FALSE;
            default:
                throw new IllegalArgumentException("not yes/no: '" + cell.trim() + "'");
        }
    }
}
