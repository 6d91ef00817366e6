package io.gpupool.scheduler.core;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Snapshot sections about nodes: the node slots (inventory, its GPUs and HCAs, per-GPU usage and
 * health, bad ports; a removed node's slot stays empty), the jobs on each node (after the jobs, which
 * they name), and each node's uplink utilisation (version 4; older snapshots leave it unknown).
 */
final class SnapshotNodes {
    private SnapshotNodes() {
    }

    static void write(final SnapshotOut out, final PoolState st) throws IOException {
        out.writeInt(st.slots.size());
        for (final NodeState n : st.slots) {
            out.writeBoolean(n != null);
            if (n != null) {
                node(out, n);
            }
        }
    }

    static void read(final SnapshotIn in, final PoolState st) throws IOException {
        final int slots = in.readInt();
        for (int i = 0; i < slots; i++) {
            if (in.readBoolean()) {
                final NodeState n = readNode(in, i, st.nodeChanges);
                st.slots.add(n);
                st.nodesById.put(n.id(), n);
            } else {
                st.slots.add(null);
            }
        }
    }

    static void writeJobLists(final SnapshotOut out, final PoolState st) throws IOException {
        for (final NodeState n : st.slots) {
            if (n != null) {
                out.writeInt(n.jobs.size());
                for (final Job j : n.jobs) {
                    out.str(j.id());
                }
            }
        }
    }

    static void readJobLists(final SnapshotIn in, final PoolState st) throws IOException {
        for (final NodeState n : st.slots) {
            if (n != null) {
                final int jobs = in.readInt();
                for (int i = 0; i < jobs; i++) {
                    n.jobs.add(st.activeJobs.get(in.str()));
                }
            }
        }
    }

    static void writeUplinks(final SnapshotOut out, final PoolState st) throws IOException {
        for (final NodeState n : st.slots) {
            if (n != null) {
                out.writeInt(n.uplinkPct);
            }
        }
    }

    static void readUplinks(final SnapshotIn in, final PoolState st) throws IOException {
        for (final NodeState n : st.slots) {
            if (n != null) {
                n.uplinkPct = in.readInt();
            }
        }
    }

    private static void node(final SnapshotOut out, final NodeState n) throws IOException {
        final NodeSpec s = n.spec;
        out.str(s.nodeId());
        out.str(s.leaf());
        out.str(s.spine());
        out.writeLong(s.cpuMilli());
        out.writeLong(s.memoryMib());
        out.writeInt(s.gpus().size());
        for (final GpuSpec g : s.gpus()) {
            out.str(g.uuid());
            out.str(g.model());
            out.writeInt(g.memoryMib());
            out.writeInt(g.nvlinkGroup());
            out.writeInt(g.pcieSwitch());
        }
        out.writeInt(s.hcas().size());
        for (final HcaSpec h : s.hcas()) {
            out.str(h.name());
            out.constant(h.linkLayer());
            out.writeInt(h.rail());
        }
        out.writeInt(n.modelIndex);
        out.writeInt(n.leafIndex);
        out.writeInt(n.spineIndex);
        for (int g = 0; g < n.gpuCount; g++) {
            out.writeInt(n.usedMilli[g]);
            out.writeLong(n.usedGpuMemMib[g]);
            out.writeBoolean(n.shared[g]);
            out.writeInt(n.healthBits[g]);
            out.writeInt(n.xid[g]);
            out.writeInt(n.temperatureC[g]);
            out.writeInt(n.utilisationPct[g]);
        }
        out.writeLong(n.lastTelemetryMs);
        out.writeLong(n.cpuFree);
        out.writeLong(n.memFree);
        out.writeInt(n.badPorts.size());
        for (final Map.Entry<String, String> p : n.badPorts.entrySet()) {
            out.str(p.getKey());
            out.str(p.getValue());
        }
        out.writeBoolean(n.linkDown);
    }

    private static NodeState readNode(final SnapshotIn in, final int slot, final NodeChanges changes) throws IOException {
        final String id = in.str();
        final String leaf = in.str();
        final String spine = in.str();
        final long cpu = in.readLong();
        final long mem = in.readLong();
        final int gpuCount = in.readInt();
        final List<GpuSpec> gpus = new ArrayList<>(gpuCount);
        for (int g = 0; g < gpuCount; g++) {
            gpus.add(new GpuSpec(in.str(), in.str(), in.readInt(), in.readInt(), in.readInt()));
        }
        final int hcaCount = in.readInt();
        final List<HcaSpec> hcas = new ArrayList<>(hcaCount);
        for (int h = 0; h < hcaCount; h++) {
            hcas.add(new HcaSpec(in.str(), in.constant(HcaLinkLayer.class), in.readInt()));
        }
        final NodeSpec spec = new NodeSpec(id, leaf, spine, cpu, mem, gpus, hcas);
        final NodeState n = new NodeState(slot, spec, in.readInt(), in.readInt(), in.readInt(), 0, changes);
        for (int g = 0; g < n.gpuCount; g++) {
            n.usedMilli[g] = in.readInt();
            n.usedGpuMemMib[g] = in.readLong();
            n.shared[g] = in.readBoolean();
            n.healthBits[g] = in.readInt();
            n.xid[g] = in.readInt();
            n.temperatureC[g] = in.readInt();
            n.utilisationPct[g] = in.readInt();
        }
        n.lastTelemetryMs = in.readLong();
        n.cpuFree = in.readLong();
        n.memFree = in.readLong();
        final int bad = in.readInt();
        for (int i = 0; i < bad; i++) {
            n.badPorts.put(in.str(), in.str());
        }
        n.linkDown = in.readBoolean();
        return n;
    }
}
