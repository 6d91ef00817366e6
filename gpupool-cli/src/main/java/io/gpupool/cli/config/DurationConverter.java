package io.gpupool.cli.config;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Reads {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 1d} or ISO-8601 ({@code PT30S}). */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

    private static final Pattern SHORT = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

    @Override
    public Duration convert(final String value) {
        return parse(value);
    }

    public static Duration parse(final String value) {
        final String text = value.trim().toLowerCase(Locale.ROOT);
        final Matcher m = SHORT.matcher(text);
        if (m.matches()) {
            final long n = Long.parseLong(m.group(1));
            switch (m.group(2)) {
                case "ms": return Duration.ofMillis(n);
                case "s": return Duration.ofSeconds(n);
                case "m": return Duration.ofMinutes(n);
                case "h": return Duration.ofHours(n);
                default: return Duration.ofDays(n);
            }
        }
        try {
            return Duration.parse(value.trim().toUpperCase(Locale.ROOT));
        } catch (DateTimeParseException e) {
            throw new CommandLine.TypeConversionException("'" + value
                    + "' is not a duration: write a whole number with a unit, e.g. 500ms, 30s, 5m, 2h or 1d");
        }
    }
}
