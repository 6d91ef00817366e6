package io.gpupool.collector.kernel;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One canonical spelling of a PCI address, so that nvidia-smi's {@code 00000000:9B:00.0}, the
 * kernel's {@code PCI:0000:9b:00} and sysfs's {@code 0000:9b:00.0} all name the same GPU.
 * Canonical: 4-hex-digit domain, bus, device, function, lower case ({@code 0000:9b:00.0}).
 */
public final class PciBusId {
    private static final Pattern FORM = Pattern.compile(
            "^(?:PCI:)?(?:([0-9a-fA-F]{1,8}):)?([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})(?:\\.([0-7]))?$");

    private PciBusId() {
    }

    /** @throws IllegalArgumentException when the text is no PCI address */
    public static String normalise(final String text) {
        final Matcher m = FORM.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a PCI bus id: '" + text + "'");
        }
        final long domain = m.group(1) == null ? 0 : Long.parseLong(m.group(1), 16);
        final int bus = Integer.parseInt(m.group(2), 16);
        final int device = Integer.parseInt(m.group(3), 16);
        final int function = m.group(4) == null ? 0 : Integer.parseInt(m.group(4));
        return String.format(Locale.ROOT, "%04x:%02x:%02x.%d", domain, bus, device, function);
    }

    /** Null-tolerant form for optional fields; an unreadable id is null. */
    public static String normaliseOrNull(final String text) {
        if (text == null) {
            return null;
        }
        try {
            return normalise(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
