package io.gpupool.collector.kernel;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Recognises Xid messages in any kernel-log framing: dmesg ({@code [time] NVRM: Xid ...}),
 * /dev/kmsg ({@code 4,123,456,-;NVRM: Xid ...}) and journalctl ({@code host kernel: NVRM: Xid ...}).
 */
public final class XidLineParser {
    private static final Pattern XID = Pattern.compile(
            "NVRM: Xid \\((?:PCI:)?([0-9a-fA-F:.]+)\\): (\\d+)(?:, pid=(\\d+|'?<unknown>'?))?(?:, name=([^,]*))?,?\\s*(.*)$");

    private XidLineParser() {
    }

    public static Optional<XidEvent> parse(final String line) {
        final int at = line.indexOf("NVRM: Xid");
        if (at < 0) {
            return Optional.empty();
        }
        final Matcher m = XID.matcher(line.substring(at));
        if (!m.find()) {
            return Optional.empty();
        }
        final String busId = PciBusId.normaliseOrNull(m.group(1));
        if (busId == null) {
            return Optional.empty();
        }
        final Long pid = m.group(3) != null && m.group(3).matches("\\d+") ? Long.valueOf(m.group(3)) : null;
        final String name = m.group(4) == null ? null : m.group(4).trim();
        return Optional.of(new XidEvent(busId, Integer.parseInt(m.group(2)), pid, name, m.group(5).trim()));
    }
}
