package io.gpupool.scheduler.stream;

import io.gpupool.avro.GpuInfo;
import io.gpupool.avro.GpuSample;
import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.HcaPort;
import io.gpupool.avro.JobCancel;
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

/** Wire records for tests: a small fabric, job requests, telemetry. */
public final class Fixtures {
    public static final String MODEL = "NVIDIA H100 80GB HBM3";

    private Fixtures() {
    }

    public static NodeInventory node(final String pool, final String nodeId, final String leaf, final int gpus) {
        final List<GpuInfo> g = new ArrayList<>();
        for (int i = 0; i < gpus; i++) {
            g.add(GpuInfo.newBuilder().setUuid(uuid(nodeId, i)).setIndex(i).setModel(MODEL).setMemoryMiB(81_559L)
                    .setNvlinkGroup("nv0").build());
        }
        return NodeInventory.newBuilder().setNodeId(nodeId).setPool(pool).setLeaf(leaf).setSpine("spine-1")
                .setObservedAt(Instant.ofEpochMilli(0)).setSource("test").setGpus(g)
                .setCpuMilli(128_000L).setMemoryMiB(1_000_000L)
                .setHcas(List.of(HcaPort.newBuilder().setName("mlx5_0").setPort(1).setLinkLayer(LinkLayer.INFINIBAND)
                        .setLeaf(leaf).setSpine("spine-1").build()))
                .build();
    }

    public static String uuid(final String nodeId, final int i) {
        return "GPU-" + nodeId + "-" + i;
    }

    public static JobRequest.Builder request(final String pool, final int nodes, final int gpusPerNode) {
        return JobRequest.newBuilder().setName("train").setTenant("team-a").setPool(pool).setNodes(nodes)
                .setGpusPerNode(gpusPerNode);
    }

    public static JobCommand submit(final String jobId, final JobRequest request) {
        return JobCommand.newBuilder().setJobId(jobId).setCommandId("submit-" + jobId)
                .setCommand(JobSubmit.newBuilder().setRequest(request).build()).build();
    }

    public static JobCommand submit(final String jobId, final String commandId, final JobRequest request) {
        return JobCommand.newBuilder().setJobId(jobId).setCommandId(commandId)
                .setCommand(JobSubmit.newBuilder().setRequest(request).build()).build();
    }

    public static JobCommand cancel(final String jobId) {
        return JobCommand.newBuilder().setJobId(jobId).setCommandId("cancel-" + jobId)
                .setCommand(JobCancel.newBuilder().setReason("test").build()).build();
    }

    /** A sink's event about one placement of the job (the decision id of its PLACED decision). */
    public static JobEvent event(final String jobId, final JobEventType type, final long at, final String placementId) {
        return JobEvent.newBuilder().setJobId(jobId).setEventId(type + "-" + jobId + "-" + placementId).setType(type)
                .setPlacementId(placementId).setOccurredAt(Instant.ofEpochMilli(at)).build();
    }

    /** All GPUs of a node at the given utilisation, healthy. */
    public static GpuSamples gpus(final String nodeId, final int gpus, final double utilPct, final long at) {
        final List<GpuSample> s = new ArrayList<>();
        for (int i = 0; i < gpus; i++) {
            s.add(GpuSample.newBuilder().setUuid(uuid(nodeId, i)).setIndex(i).setUtilizationGpuPct(utilPct)
                    .setTemperatureC(55.0).setEccUncorrectableVolatile(0L).setXidCodes(List.of()).build());
        }
        return GpuSamples.newBuilder().setNodeId(nodeId).setSampledAt(Instant.ofEpochMilli(at)).setSource("test")
                .setGpus(s).build();
    }

    public static LinkSamples link(final String nodeId, final boolean up, final long linkDowned, final long at) {
        return LinkSamples.newBuilder().setNodeId(nodeId).setSampledAt(Instant.ofEpochMilli(at)).setSource("test")
                .setPorts(List.of(LinkSample.newBuilder().setHca("mlx5_0").setPort(1)
                        .setState(up ? PortState.ACTIVE : PortState.DOWN)
                        .setPhysState(up ? PortPhysState.LINK_UP : PortPhysState.DISABLED)
                        .setLinkDowned(linkDowned).setSymbolErrors(0L).setRcvErrors(0L)
                        .setRateGbps(400.0).setTxBytesPerSec(1e9).build()))
                .build();
    }
}
