package io.gpupool.collector.live;

import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.LinkSamples;
import io.gpupool.avro.NodeInventory;
import java.util.List;

/**
 * What one poll of a node produced. {@code gpu} is null when the GPU source failed this time,
 * {@code link} when the node has no sysfs source; {@code errors} says why in words.
 */
public record Frame(NodeInventory inventory, GpuSamples gpu, LinkSamples link, List<String> warnings, List<String> errors) {
    public Frame {
        warnings = List.copyOf(warnings);
        errors = List.copyOf(errors);
    }
}
