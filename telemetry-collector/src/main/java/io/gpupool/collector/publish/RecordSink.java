package io.gpupool.collector.publish;

import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.LinkSamples;
import io.gpupool.avro.NodeInventory;

/** Where collected records go: the Kafka publisher, or a list in a test or a dry run. */
public interface RecordSink {
    void publishInventory(NodeInventory record);

    void publishGpu(GpuSamples record);

    void publishLink(LinkSamples record);
}
