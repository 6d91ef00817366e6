package io.gpupool.collector.fabric;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Derives node -> leaf -> spine from {@code ibnetdiscover --ports} (one line per cabled port:
 * {@code CA lid port guid width speed - SW lid port guid ( 'ca name' - 'sw name' )}). A leaf is a
 * switch with host adapters as peers, a spine a switch whose peers are all switches. A host
 * adapter's description is "{@code <node> <adapter>}" by convention (how OFED sets it), so the
 * node is its first word. Switches are told apart by GUID, not by name, since names repeat.
 */
public final class IbnetdiscoverParser {
    private static final Pattern END = Pattern.compile(
            "^\\s*(CA|SW)\\s+(\\d+)\\s+(\\d+)\\s+(0x[0-9a-fA-F]+)\\b(.*)$");
    private static final Pattern PEER = Pattern.compile(
            "-\\s*(CA|SW)\\s+(\\d+)\\s+(\\d+)\\s+(0x[0-9a-fA-F]+)\\s*(.*)$");
    private static final Pattern QUOTED = Pattern.compile("'([^']*)'|\"([^\"]*)\"");
    private static final Pattern TRAILING_DIGITS = Pattern.compile("(\\d+)$");

    private record End(String type, String guid, String name) {
    }

    private IbnetdiscoverParser() {
    }

    public static FabricMap parse(final String text) {
        final Map<String, End> byGuid = new HashMap<>();
        final Map<String, Set<String>> peers = new HashMap<>();
        final List<String> warnings = new ArrayList<>();
        int lineNo = 0;
        for (final String line : text.split("\r?\n")) {
            lineNo++;
            if (line.isBlank() || line.trim().startsWith("#")) {
                continue;
            }
            final Matcher m = END.matcher(line);
            if (!m.matches()) {
                warnings.add("line " + lineNo + ": not a port line, skipped: " + line.trim());
                continue;
            }
            final Matcher peer = PEER.matcher(m.group(5));
            final List<String> names = names(peer.find() ? peer.group(5) : m.group(5));
            final End self = remember(byGuid, m.group(1), m.group(4), names.isEmpty() ? null : names.get(0));
            if (peer.find(0)) {
                final End other = remember(byGuid, peer.group(1), peer.group(4), names.size() > 1 ? names.get(1) : null);
                peers.computeIfAbsent(self.guid(), k -> new TreeSet<>()).add(other.guid());
                peers.computeIfAbsent(other.guid(), k -> new TreeSet<>()).add(self.guid());
            }
        }
        final Set<String> leaves = new TreeSet<>();
        final Set<String> spines = new TreeSet<>();
        for (final End e : byGuid.values()) {
            if (!e.type().equals("SW")) {
                continue;
            }
            final Set<String> p = peers.getOrDefault(e.guid(), Set.of());
            final boolean hasCa = p.stream().anyMatch(g -> byGuid.get(g).type().equals("CA"));
            final boolean hasSw = p.stream().anyMatch(g -> byGuid.get(g).type().equals("SW"));
            if (hasCa) {
                leaves.add(e.guid());
            } else if (hasSw) {
                spines.add(e.guid());
            }
        }
        final List<Attachment> attachments = new ArrayList<>();
        for (final End ca : byGuid.values()) {
            if (!ca.type().equals("CA")) {
                continue;
            }
            for (final String leafGuid : peers.getOrDefault(ca.guid(), Set.of())) {
                if (!leaves.contains(leafGuid)) {
                    continue;
                }
                final List<String> spineNames = new ArrayList<>();
                for (final String g : peers.getOrDefault(leafGuid, Set.of())) {
                    if (spines.contains(g)) {
                        spineNames.add(nameOf(byGuid.get(g)));
                    }
                }
                spineNames.sort(null);
                final String desc = nameOf(ca).trim();
                final String[] parts = desc.split("\\s+", 2);
                final String hca = parts.length > 1 ? parts[1] : null;
                attachments.add(new Attachment(parts[0], hca, nameOf(byGuid.get(leafGuid)), spineNames, rail(hca)));
            }
        }
        attachments.sort(Comparator.comparing(Attachment::node)
                .thenComparing(a -> a.hca() == null ? "" : a.hca()));
        return new FabricMap("ibnetdiscover", attachments, warnings);
    }

    private static End remember(final Map<String, End> byGuid, final String type, final String guid, final String name) {
        final End known = byGuid.get(guid);
        if (known == null || known.name() == null && name != null) {
            final End e = new End(type, guid, name);
            byGuid.put(guid, e);
            return e;
        }
        return known;
    }

    private static String nameOf(final End e) {
        return e.name() == null || e.name().isBlank() ? e.guid() : e.name();
    }

    /** The one or two names at the end of a line: quoted, or unquoted separated by " - ". */
    static List<String> names(final String tail) {
        final List<String> names = new ArrayList<>();
        final Matcher q = QUOTED.matcher(tail);
        while (q.find()) {
            names.add((q.group(1) != null ? q.group(1) : q.group(2)).trim());
        }
        if (!names.isEmpty()) {
            return names;
        }
        final int open = tail.indexOf('(');
        final int close = tail.lastIndexOf(')');
        if (open >= 0 && close > open) {
            for (final String n : tail.substring(open + 1, close).split("\\s+-\\s+", 2)) {
                names.add(n.trim());
            }
        }
        return names;
    }

    /** Adapters numbered alike across nodes share a rail (mlx5_3 and "HCA-3" are rail 3). */
    static String rail(final String hca) {
        if (hca == null) {
            return null;
        }
        final Matcher m = TRAILING_DIGITS.matcher(hca.trim());
        return m.find() ? m.group(1) : null;
    }
}
