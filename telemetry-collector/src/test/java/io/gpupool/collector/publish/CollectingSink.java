package io.gpupool.collector.publish;

import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.LinkSamples;
import io.gpupool.avro.NodeInventory;
import java.util.ArrayList;
import java.util.List;

/** A sink that keeps what it is given, for tests that look at records without a broker. */
public final class CollectingSink implements RecordSink {
    public final List<NodeInventory> inventories = new ArrayList<>();
    public final List<GpuSamples> gpus = new ArrayList<>();
    public final List<LinkSamples> links = new ArrayList<>();

    @Override
    public synchronized void publishInventory(final NodeInventory record) {
        inventories.add(record);
    }

    @Override
    public synchronized void publishGpu(final GpuSamples record) {
        gpus.add(record);
    }

    @Override
    public synchronized void publishLink(final LinkSamples record) {
        links.add(record);
    }

    public synchronized void clear() {
        inventories.clear();
        gpus.clear();
        links.clear();
    }
}
