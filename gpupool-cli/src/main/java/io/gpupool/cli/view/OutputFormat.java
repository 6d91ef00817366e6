package io.gpupool.cli.view;

import java.util.Locale;
import picocli.CommandLine;

/** {@code -o table|wide|json|yaml}. */
public enum OutputFormat {
    TABLE, WIDE, JSON, YAML;

    boolean human() {
        return this == TABLE || this == WIDE;
    }

    /** Reads the lower-case names a user types. */
    public static final class Converter implements CommandLine.ITypeConverter<OutputFormat> {
        @Override
        public OutputFormat convert(final String value) {
            try {
                return OutputFormat.valueOf(value.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException("'" + value + "' is not an output format: use table, wide, json or yaml");
            }
        }
    }
}
