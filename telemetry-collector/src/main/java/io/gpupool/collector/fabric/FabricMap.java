package io.gpupool.collector.fabric;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Node -> leaf -> spine, as derived from a fabric description. A node with several adapters has
 * one attachment each; its primary one (lowest adapter name) gives the node's leaf and spine.
 */
public record FabricMap(String source, List<Attachment> attachments, List<String> warnings) {
    public FabricMap {
        attachments = List.copyOf(attachments);
        warnings = List.copyOf(warnings);
    }

    public Map<String, List<Attachment>> byNode() {
        final Map<String, List<Attachment>> out = new TreeMap<>();
        for (final Attachment a : attachments) {
            out.computeIfAbsent(a.node(), k -> new ArrayList<>()).add(a);
        }
        out.values().forEach(l -> l.sort(Comparator.comparing(a -> a.hca() == null ? "" : a.hca())));
        return out;
    }

    /** The primary attachment of a node, or null when the fabric does not know it. */
    public Attachment primary(final String node) {
        final List<Attachment> list = byNode().get(node);
        return list == null || list.isEmpty() ? null : list.get(0);
    }

    /** Attachment of a given adapter of a node, or null. */
    public Attachment of(final String node, final String hca) {
        for (final Attachment a : byNode().getOrDefault(node, List.of())) {
            if (hca.equals(a.hca())) {
                return a;
            }
        }
        return null;
    }

    /** Leaf -> its spines, for printing the tree. */
    public Map<String, List<String>> leaves() {
        final Map<String, List<String>> out = new LinkedHashMap<>();
        attachments.stream().sorted(Comparator.comparing(Attachment::leaf))
                .forEach(a -> out.putIfAbsent(a.leaf(), a.spines()));
        return out;
    }
}
