package io.gpupool.collector.fabric;

import java.util.List;

/**
 * Where one host adapter of one node is cabled: its leaf switch and the spines above that leaf.
 *
 * @param hca    adapter name as the source knows it (mlx5_0, "HCA-1"); null when the source names none
 * @param spines spine switches connected to the leaf, sorted; empty when none is known
 * @param rail   rail of a rail-optimised fabric, null when unknown
 */
public record Attachment(String node, String hca, String leaf, List<String> spines, String rail) {
    public Attachment {
        spines = List.copyOf(spines);
    }

    /** One string for the "spine" of the schema: the spine, or the sorted set of them joined by ','. */
    public String spine() {
        return spines.isEmpty() ? null : String.join(",", spines);
    }
}
