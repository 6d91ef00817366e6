package io.gpupool.simulator.pool;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The simulator's own account of what the engine's placements use on each node. It decides
 * nothing; it audits the engine (no node over its CPU, memory or GPU capacity, GPU model
 * allowed) and measures allocation and fragmentation for the reports.
 */
public final class NodeLedger {

    private final Map<String, SimNode> nodes = new HashMap<>();
    private final Map<String, long[]> used = new HashMap<>(); // cpu, memory, gpu milli
    private final Map<String, int[]> usedPerGpu = new HashMap<>(); // milli-GPU used on each GPU of the node
    private final Map<String, Placement> placements = new HashMap<>();
    private final Map<String, SimJob> running = new HashMap<>();
    private final Map<String, List<String>> runningOn = new HashMap<>();
    private long gpuCapacityMilli;
    private long gpuAllocatedMilli;
    private long fragmentedFreeGpuMilli;

    public void addNode(final SimNode node) {
        if (nodes.putIfAbsent(node.id(), node) != null) {
            throw new IllegalArgumentException("node " + node.id() + " added twice");
        }
        used.put(node.id(), new long[3]);
        usedPerGpu.put(node.id(), new int[node.gpuCount()]);
        gpuCapacityMilli += node.gpuCount() * 1000L;
    }

    /** Books a placement, failing loudly if the engine broke a capacity or model constraint. */
    public void place(final SimJob job, final Placement placement) {
        if (running.containsKey(job.id())) {
            throw new IllegalStateException("engine placed job " + job.id() + " twice");
        }
        if (placement.nodeIds().size() != job.nodeCount()) {
            throw new IllegalStateException("engine placed job " + job.id() + " on " + placement.nodeIds().size()
                    + " nodes, it asked for " + job.nodeCount());
        }
        final long gpuMilliPerNode = (long) job.gpusPerNode() * job.gpuMilli();
        for (int k = 0; k < placement.nodeIds().size(); k++) {
            final String nodeId = placement.nodeIds().get(k);
            final SimNode node = nodes.get(nodeId);
            if (node == null) {
                throw new IllegalStateException("engine placed job " + job.id() + " on unknown node " + nodeId);
            }
            if (job.gpusPerNode() > 0 && !job.allowedGpuModels().isEmpty() && !job.allowedGpuModels().contains(node.gpuModel())) {
                throw new IllegalStateException("engine placed job " + job.id() + " on " + node.gpuModel()
                        + " node " + nodeId + ", allowed only " + job.allowedGpuModels());
            }
            if (job.gpusPerNode() > node.gpuCount()) {
                throw new IllegalStateException("engine placed " + job.gpusPerNode() + " GPUs of job " + job.id()
                        + " on " + nodeId + " which has " + node.gpuCount());
            }
            bookGpus(job, nodeId, placement.gpusPerNode().get(k), 1);
            final long[] u = used.get(nodeId);
            fragmentedFreeGpuMilli -= stranded(node, u[2]);
            u[0] += job.cpuMilli();
            u[1] += job.memoryMib();
            u[2] += gpuMilliPerNode;
            fragmentedFreeGpuMilli += stranded(node, u[2]);
            if (u[0] > node.cpuMilli() || u[1] > node.memoryMib() || u[2] > node.gpuCount() * 1000L) {
                throw new IllegalStateException("engine over-allocated node " + nodeId + " with job " + job.id()
                        + ": cpu " + u[0] + "/" + node.cpuMilli() + ", memory " + u[1] + "/" + node.memoryMib()
                        + ", gpu milli " + u[2] + "/" + node.gpuCount() * 1000L);
            }
        }
        gpuAllocatedMilli += job.totalGpuMilli();
        running.put(job.id(), job);
        runningOn.put(job.id(), placement.nodeIds());
        placements.put(job.id(), placement);
    }

    public void release(final String jobId) {
        final SimJob job = running.remove(jobId);
        if (job == null) {
            throw new IllegalStateException("job " + jobId + " is not running");
        }
        final long gpuMilliPerNode = (long) job.gpusPerNode() * job.gpuMilli();
        final Placement placement = placements.remove(jobId);
        for (int k = 0; k < placement.nodeIds().size(); k++) {
            bookGpus(job, placement.nodeIds().get(k), placement.gpusPerNode().get(k), -1);
        }
        for (String nodeId : runningOn.remove(jobId)) {
            final long[] u = used.get(nodeId);
            final SimNode node = nodes.get(nodeId);
            fragmentedFreeGpuMilli -= stranded(node, u[2]);
            u[0] -= job.cpuMilli();
            u[1] -= job.memoryMib();
            u[2] -= gpuMilliPerNode;
            fragmentedFreeGpuMilli += stranded(node, u[2]);
        }
        gpuAllocatedMilli -= job.totalGpuMilli();
    }

    /** Books (sign 1) or frees (sign -1) the job's milli-GPU on each chosen GPU; no GPU may pass 1000. */
    private void bookGpus(final SimJob job, final String nodeId, final List<Integer> gpus, final int sign) {
        if (sign > 0 && gpus.size() != job.gpusPerNode()) {
            throw new IllegalStateException("engine gave job " + job.id() + " GPUs " + gpus + " on " + nodeId
                    + ", it asked for " + job.gpusPerNode());
        }
        final int[] perGpu = usedPerGpu.get(nodeId);
        for (int gpu : gpus) {
            if (gpu < 0 || gpu >= perGpu.length) {
                throw new IllegalStateException("engine gave job " + job.id() + " GPU " + gpu + " on " + nodeId
                        + " which has " + perGpu.length);
            }
            perGpu[gpu] += sign * job.gpuMilli();
            if (perGpu[gpu] > 1000) {
                throw new IllegalStateException("engine over-allocated GPU " + gpu + " of " + nodeId + " with job " + job.id()
                        + ": " + perGpu[gpu] + " milli");
            }
        }
    }

    public long gpuCapacityMilli() {
        return gpuCapacityMilli;
    }

    public long gpuAllocatedMilli() {
        return gpuAllocatedMilli;
    }

    public int runningJobs() {
        return running.size();
    }

    /**
     * Free GPU milli stranded on nodes that already host GPU work: the capacity a scheduler
     * fragments (a whole-GPU or multi-GPU job may no longer fit there). Nodes left entirely
     * free are not counted.
     */
    public long fragmentedFreeGpuMilli() {
        return fragmentedFreeGpuMilli;
    }

    private static long stranded(final SimNode node, final long gpuUsed) {
        final long capacity = node.gpuCount() * 1000L;
        return gpuUsed > 0 && gpuUsed < capacity ? capacity - gpuUsed : 0;
    }
}
