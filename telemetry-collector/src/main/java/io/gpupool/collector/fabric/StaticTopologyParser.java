package io.gpupool.collector.fabric;

import java.util.ArrayList;
import java.util.List;

/**
 * Node placement written by hand, one line per node or adapter:
 * {@code <node> <leaf> [<spine>] [<hca>] [<rail>]} (whitespace separated, '#' comments, '-' for
 * "not given"). Node names may be hostlist expressions ({@code gpu[01-16] leaf1 spine1}).
 */
public final class StaticTopologyParser {

    private StaticTopologyParser() {
    }

    public static FabricMap parse(final String text) {
        final List<Attachment> attachments = new ArrayList<>();
        final List<String> warnings = new ArrayList<>();
        int lineNo = 0;
        for (final String raw : text.split("\r?\n")) {
            lineNo++;
            final int hash = raw.indexOf('#');
            final String line = (hash >= 0 ? raw.substring(0, hash) : raw).trim();
            if (line.isEmpty()) {
                continue;
            }
            final String[] f = line.split("\\s+");
            if (f.length < 2) {
                warnings.add("line " + lineNo + ": expected '<node> <leaf> [<spine>] [<hca>] [<rail>]', skipped: " + line);
                continue;
            }
            final List<String> spines = f.length > 2 && !f[2].equals("-") ? List.of(f[2]) : List.of();
            final String hca = f.length > 3 && !f[3].equals("-") ? f[3] : null;
            final String rail = f.length > 4 && !f[4].equals("-") ? f[4] : null;
            try {
                for (final String node : Hostlist.expand(f[0])) {
                    attachments.add(new Attachment(node, hca, f[1], spines, rail));
                }
            } catch (IllegalArgumentException e) {
                warnings.add("line " + lineNo + ": " + e.getMessage());
            }
        }
        return new FabricMap("static", attachments, warnings);
    }
}
