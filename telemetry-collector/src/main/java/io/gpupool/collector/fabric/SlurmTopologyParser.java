package io.gpupool.collector.fabric;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Derives node -> leaf -> spine from a Slurm topology.conf (topology/tree): a switch with
 * {@code Nodes=} is a leaf, the switch listing it in {@code Switches=} is its spine. Keys are
 * case-insensitive and may come in any order, as slurm.conf allows.
 */
public final class SlurmTopologyParser {

    private SlurmTopologyParser() {
    }

    public static FabricMap parse(final String text) {
        final Map<String, List<String>> nodesOfLeaf = new LinkedHashMap<>();
        final Map<String, List<String>> parentsOf = new TreeMap<>();
        final List<String> warnings = new ArrayList<>();
        int lineNo = 0;
        for (final String raw : text.split("\r?\n")) {
            lineNo++;
            final int hash = raw.indexOf('#');
            final String line = (hash >= 0 ? raw.substring(0, hash) : raw).trim();
            if (line.isEmpty()) {
                continue;
            }
            final Map<String, String> kv = new LinkedHashMap<>();
            for (final String token : line.split("\\s+")) {
                final int eq = token.indexOf('=');
                if (eq > 0) {
                    kv.put(token.substring(0, eq).toLowerCase(Locale.ROOT), token.substring(eq + 1));
                }
            }
            final String name = kv.get("switchname");
            if (name == null) {
                warnings.add("line " + lineNo + ": no SwitchName, skipped: " + line);
                continue;
            }
            try {
                if (kv.containsKey("nodes")) {
                    nodesOfLeaf.put(name, Hostlist.expand(kv.get("nodes")));
                }
                if (kv.containsKey("switches")) {
                    for (final String child : Hostlist.expand(kv.get("switches"))) {
                        parentsOf.computeIfAbsent(child, k -> new ArrayList<>()).add(name);
                    }
                }
            } catch (IllegalArgumentException e) {
                warnings.add("line " + lineNo + ": " + e.getMessage());
            }
        }
        final List<Attachment> attachments = new ArrayList<>();
        for (final Map.Entry<String, List<String>> leaf : nodesOfLeaf.entrySet()) {
            final List<String> spines = new ArrayList<>(parentsOf.getOrDefault(leaf.getKey(), List.of()));
            spines.sort(null);
            for (final String node : leaf.getValue()) {
                attachments.add(new Attachment(node, null, leaf.getKey(), spines, null));
            }
        }
        attachments.sort(Comparator.comparing(Attachment::node));
        return new FabricMap("slurm", attachments, warnings);
    }
}
