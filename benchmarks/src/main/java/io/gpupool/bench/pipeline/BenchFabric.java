package io.gpupool.bench.pipeline;

import io.gpupool.avro.GpuInfo;
import io.gpupool.avro.GpuSample;
import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.HcaPort;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.JobRequest;
import io.gpupool.avro.JobSubmit;
import io.gpupool.avro.LinkLayer;
import io.gpupool.avro.LinkSample;
import io.gpupool.avro.LinkSamples;
import io.gpupool.avro.NodeInventory;
import io.gpupool.avro.PortPhysState;
import io.gpupool.avro.PortState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** The synthetic fabric, telemetry and job requests of the pipeline bench (and of the cost bench). */
public final class BenchFabric {
    static final String MODEL = "NVIDIA H100 80GB HBM3";

    private BenchFabric() {
    }

    /** Node {@code n} of {@code pool}: {@code gpus} H100s in one NVLink group, one InfiniBand port on leaf n mod leaves. */
    public static NodeInventory node(final String pool, final int n, final int gpus, final int leaves) {
        final String id = PipelineBench.nodeId(n);
        final List<GpuInfo> g = new ArrayList<>(gpus);
        for (int i = 0; i < gpus; i++) {
            g.add(GpuInfo.newBuilder().setUuid("GPU-" + id + "-" + i).setIndex(i).setModel(MODEL).setMemoryMiB(81_559L)
                    .setNvlinkGroup("nv0").build());
        }
        final String leaf = "leaf-" + (n % leaves);
        return NodeInventory.newBuilder().setNodeId(id).setPool(pool).setLeaf(leaf).setSpine("spine-" + (n % leaves) / 8)
                .setObservedAt(Instant.ofEpochMilli(0)).setSource("bench").setGpus(g).setCpuMilli(192_000L)
                .setMemoryMiB(2_000_000L)
                .setHcas(List.of(HcaPort.newBuilder().setName("mlx5_0").setPort(1).setLinkLayer(LinkLayer.INFINIBAND)
                        .setLeaf(leaf).build()))
                .build();
    }

    /** Steady readings: each node's GPUs at a fixed utilisation (so bands do not move every second). */
    static GpuSamples gpuSamples(final String nodeId, final int gpus, final int n) {
        final List<GpuSample> s = new ArrayList<>(gpus);
        for (int i = 0; i < gpus; i++) {
            s.add(GpuSample.newBuilder().setUuid("GPU-" + nodeId + "-" + i).setIndex(i)
                    .setUtilizationGpuPct((double) ((n * 7 + i * 13) % 100)).setTemperatureC(55.0)
                    .setMemoryUsedMiB(1024L).setEccUncorrectableVolatile(0L).setXidCodes(List.of()).build());
        }
        return GpuSamples.newBuilder().setNodeId(nodeId).setSampledAt(Instant.ofEpochMilli(0)).setSource("bench")
                .setIntervalMillis(1000L).setGpus(s).build();
    }

    static LinkSamples linkSamples(final String nodeId) {
        return LinkSamples.newBuilder().setNodeId(nodeId).setSampledAt(Instant.ofEpochMilli(0)).setSource("bench")
                .setIntervalMillis(1000L)
                .setPorts(List.of(LinkSample.newBuilder().setHca("mlx5_0").setPort(1).setState(PortState.ACTIVE)
                        .setPhysState(PortPhysState.LINK_UP).setRateGbps(400.0).setTxBytesPerSec(5e9)
                        .setRxBytesPerSec(5e9).setSymbolErrors(0L).setLinkDowned(0L).setRcvErrors(0L)
                        .setXmitWait(0L).build()))
                .build();
    }

    /** The sink's report that the job placed as {@code placementId} ran and completed at {@code nowMs}. */
    static JobEvent completed(final String jobId, final String placementId, final long nowMs) {
        return JobEvent.newBuilder().setJobId(jobId).setEventId("done-" + jobId).setType(JobEventType.COMPLETED)
                .setPlacementId(placementId).setOccurredAt(Instant.ofEpochMilli(nowMs)).build();
    }

    /** A submit of one node with {@code gpus} GPUs under {@code jobId}. */
    public static JobCommand submit(final String pool, final String jobId, final int gpus) {
        final JobRequest r = JobRequest.newBuilder().setName("bench").setTenant("tenant-" + (jobId.hashCode() & 3))
                .setPool(pool).setNodes(1).setGpusPerNode(gpus).setRuntimeEstimateMillis(2_000L).build();
        return JobCommand.newBuilder().setJobId(jobId).setCommandId("c-" + jobId)
                .setCommand(JobSubmit.newBuilder().setRequest(r).build()).build();
    }
}
