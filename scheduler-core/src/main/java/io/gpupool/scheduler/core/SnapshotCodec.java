package io.gpupool.scheduler.core;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The engine state as versioned bytes. Hand-written so that the same state always gives the same
 * bytes (every collection is written in a deterministic order) and old snapshots stay readable.
 * Derived structures (capacity index, shared-room sets, inventory totals) are rebuilt, not stored.
 *
 * <p>Versions: 1 as first released; 2 appends the consolidation guard (when each active job was last
 * moved by consolidation, and the pool's recent moves). Version 1 snapshots still read, with no job
 * cooling down and an empty window. 3 appends the reservation plans kept between passes; 4 appends
 * each node's uplink utilisation (older ones restore with every uplink unknown).
 */
final class SnapshotCodec {
    private static final int MAGIC = 0x47505045; // "GPPE"
    /**
     * 2: consolidation guard; 3: reservation plans; 4: node uplinks; 5: placement identity of every job.
     * Older ones restore without them (a job holding resources then takes its PLACED decision's id).
     */
    static final int VERSION = 5;
    private static final int OLDEST_READABLE = 1;

    private SnapshotCodec() {
    }

    static byte[] write(final PoolEngine e) {
        final PoolState st = e.st;
        // sized like the last snapshot, so that a large one is not copied over and over as it grows
        final GrowableBytes bytes = new GrowableBytes(Math.max(1 << 16, e.lastSnapshotSize + (e.lastSnapshotSize >> 3)));
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(MAGIC);
            out.writeInt(VERSION);
            out.writeLong(st.decisionSeq);
            out.writeLong(st.submitSeq);
            out.writeLong(st.nowMs);
            names(out, st.models.names());
            names(out, st.leaves.names());
            names(out, st.spines.names());
            out.writeInt(st.spineOfLeaf.size());
            for (int l = 0; l < st.spineOfLeaf.size(); l++) {
                out.writeInt(st.spineOfLeaf.get(l));
                out.writeBoolean(st.leafCongested.get(l));
            }
            out.writeInt(st.slots.size());
            for (final NodeState n : st.slots) {
                out.writeBoolean(n != null);
                if (n != null) {
                    node(out, n);
                }
            }
            jobs(out, st.activeJobs);
            jobs(out, st.finishedJobs);
            out.writeInt(st.queue.size());
            for (final Job j : st.queue) {
                str(out, j.id());
            }
            for (final NodeState n : st.slots) {
                if (n != null) {
                    out.writeInt(n.jobs.size());
                    for (final Job j : n.jobs) {
                        str(out, j.id());
                    }
                }
            }
            mix(out, st.sizeMix);
            out.writeBoolean(st.reservation != null);
            if (st.reservation != null) {
                str(out, st.reservation.jobId());
                out.writeLong(st.reservation.startAtMs());
                names(out, st.reservation.nodes());
            }
            out.writeInt(st.fairShare.accounts.size());
            for (final Map.Entry<String, FairShare.Account> a : st.fairShare.accounts.entrySet()) {
                str(out, a.getKey());
                out.writeDouble(a.getValue().usageGpuMs);
                out.writeLong(a.getValue().asOfMs);
                out.writeLong(a.getValue().heldMilli);
            }
            out.writeInt(st.estimator.samples.size());
            for (final Map.Entry<String, TreeMap<String, long[]>> t : st.estimator.samples.entrySet()) {
                str(out, t.getKey());
                out.writeInt(t.getValue().size());
                for (final Map.Entry<String, long[]> s : t.getValue().entrySet()) {
                    str(out, s.getKey());
                    out.writeInt(s.getValue().length);
                    for (final long v : s.getValue()) {
                        out.writeLong(v);
                    }
                }
            }
            consolidation(out, st);
            final List<StandingPlans.Plan> plans = st.plans.plans();
            out.writeInt(plans.size());
            for (final StandingPlans.Plan p : plans) {
                spec(out, p.exemplar());
                out.writeLong(p.startAtMs());
                names(out, p.nodes());
            }
            for (final NodeState n : st.slots) {
                if (n != null) {
                    out.writeInt(n.uplinkPct);
                }
            }
            placements(out, st.activeJobs);
            placements(out, st.finishedJobs);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        e.lastSnapshotSize = bytes.size();
        return bytes.toByteArray();
    }

    static void read(final byte[] data, final PoolEngine e) {
        final PoolState st = e.st;
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(data))) {
            if (in.readInt() != MAGIC) {
                throw new IllegalArgumentException("not a gpupool engine snapshot (bad magic)");
            }
            final int version = in.readInt();
            if (version < OLDEST_READABLE || version > VERSION) {
                throw new IllegalArgumentException("engine snapshot version " + version + " is not supported (this build reads "
                        + OLDEST_READABLE + " to " + VERSION + ")");
            }
            st.decisionSeq = in.readLong();
            st.submitSeq = in.readLong();
            st.nowMs = in.readLong();
            for (final String m : readNames(in)) {
                st.models.intern(m);
            }
            for (final String l : readNames(in)) {
                st.leaves.intern(l);
            }
            for (final String s : readNames(in)) {
                st.spines.intern(s);
            }
            final int leaves = in.readInt();
            for (int l = 0; l < leaves; l++) {
                st.spineOfLeaf.add(in.readInt());
                st.leafCongested.add(in.readBoolean());
            }
            final int slots = in.readInt();
            for (int i = 0; i < slots; i++) {
                if (in.readBoolean()) {
                    final NodeState n = readNode(in, i, st);
                    st.slots.add(n);
                    st.nodesById.put(n.id(), n);
                } else {
                    st.slots.add(null);
                }
            }
            readJobs(in, st.activeJobs);
            readJobs(in, st.finishedJobs);
            final int queued = in.readInt();
            for (int i = 0; i < queued; i++) {
                st.queue.add(st.activeJobs.get(str(in)));
            }
            for (final NodeState n : st.slots) {
                if (n != null) {
                    final int jobs = in.readInt();
                    for (int i = 0; i < jobs; i++) {
                        n.jobs.add(st.activeJobs.get(str(in)));
                    }
                }
            }
            readMix(in, st.sizeMix);
            if (in.readBoolean()) {
                st.reservation = new Reservation(str(in), in.readLong(), readNames(in));
            }
            final int accounts = in.readInt();
            for (int i = 0; i < accounts; i++) {
                final FairShare.Account a = st.fairShare.account(str(in));
                a.usageGpuMs = in.readDouble();
                a.asOfMs = in.readLong();
                a.heldMilli = in.readLong();
            }
            final int tenants = in.readInt();
            for (int i = 0; i < tenants; i++) {
                final TreeMap<String, long[]> t = new TreeMap<>();
                st.estimator.samples.put(str(in), t);
                final int names = in.readInt();
                for (int n = 0; n < names; n++) {
                    final String key = str(in);
                    final long[] v = new long[in.readInt()];
                    for (int k = 0; k < v.length; k++) {
                        v[k] = in.readLong();
                    }
                    t.put(key, v);
                }
            }
            if (version >= 2) {
                readConsolidation(in, st);
            }
            if (version >= 3) {
                final int plans = in.readInt();
                for (int i = 0; i < plans; i++) {
                    st.plans.put(readSpec(in), in.readLong(), readNames(in));
                }
            }
            if (version >= 4) {
                for (final NodeState n : st.slots) {
                    if (n != null) {
                        n.uplinkPct = in.readInt();
                    }
                }
            }
            if (version >= 5) {
                readPlacements(in, st.activeJobs);
                readPlacements(in, st.finishedJobs);
            } else {
                placementsFromDecisions(st.activeJobs);
            }
            if (in.available() != 0) {
                throw new IllegalArgumentException("engine snapshot has " + in.available() + " trailing bytes");
            }
        } catch (IOException ex) {
            throw new IllegalArgumentException("engine snapshot is truncated or corrupt: " + ex.getMessage(), ex);
        }
        e.rebuildDerived();
    }

    // ---- placement identity (version 5), per job in the order the jobs were written

    private static void placements(final DataOutputStream out, final LinkedHashMap<String, Job> jobs) throws IOException {
        for (final Job j : jobs.values()) {
            str(out, j.placementId);
            out.writeInt(j.earlierPlacements.size());
            for (final String p : j.earlierPlacements) {
                str(out, p);
            }
            out.writeInt(j.staleEvents);
            out.writeInt(j.refusedEvents);
            str(out, j.lastRefusal);
        }
    }

    private static void readPlacements(final DataInputStream in, final LinkedHashMap<String, Job> jobs) throws IOException {
        for (final Job j : jobs.values()) {
            j.placementId = str(in);
            final int earlier = in.readInt();
            if (earlier < 0 || earlier > Job.EARLIER_KEPT) {
                throw new IOException("job " + j.id() + " has " + earlier + " earlier placements (at most "
                        + Job.EARLIER_KEPT + ")");
            }
            for (int i = 0; i < earlier; i++) {
                j.earlierPlacements.addLast(str(in));
            }
            j.staleEvents = in.readInt();
            j.refusedEvents = in.readInt();
            j.lastRefusal = str(in);
        }
    }

    /** Before version 5: a job that holds resources holds them under its last decision, the PLACED one. */
    private static void placementsFromDecisions(final LinkedHashMap<String, Job> jobs) {
        for (final Job j : jobs.values()) {
            if (j.state.holdsResources() && j.lastDecision != null && j.lastDecision.kind() == DecisionKind.PLACED) {
                j.placementId = j.lastDecision.decisionId();
            }
        }
    }

    // ---- consolidation guard (version 2)

    private static void consolidation(final DataOutputStream out, final PoolState st) throws IOException {
        int moved = 0;
        for (final Job j : st.activeJobs.values()) {
            if (j.consolidatedAtMs != Long.MIN_VALUE) {
                moved++;
            }
        }
        out.writeInt(moved);
        for (final Job j : st.activeJobs.values()) {
            if (j.consolidatedAtMs != Long.MIN_VALUE) {
                str(out, j.id());
                out.writeLong(j.consolidatedAtMs);
            }
        }
        out.writeInt(st.consolidationMoves.size());
        for (final long t : st.consolidationMoves) {
            out.writeLong(t);
        }
    }

    private static void readConsolidation(final DataInputStream in, final PoolState st) throws IOException {
        final int moved = in.readInt();
        for (int i = 0; i < moved; i++) {
            final Job j = st.activeJobs.get(str(in));
            final long at = in.readLong();
            if (j == null) {
                throw new IOException("consolidation entry names a job that is not active");
            }
            j.consolidatedAtMs = at;
        }
        final int moves = in.readInt();
        for (int i = 0; i < moves; i++) {
            st.consolidationMoves.addLast(in.readLong());
        }
    }

    // ---- nodes

    private static void node(final DataOutputStream out, final NodeState n) throws IOException {
        final NodeSpec s = n.spec;
        str(out, s.nodeId());
        str(out, s.leaf());
        str(out, s.spine());
        out.writeLong(s.cpuMilli());
        out.writeLong(s.memoryMib());
        out.writeInt(s.gpus().size());
        for (final GpuSpec g : s.gpus()) {
            str(out, g.uuid());
            str(out, g.model());
            out.writeInt(g.memoryMib());
            out.writeInt(g.nvlinkGroup());
            out.writeInt(g.pcieSwitch());
        }
        out.writeInt(s.hcas().size());
        for (final HcaSpec h : s.hcas()) {
            str(out, h.name());
            out.writeByte(h.linkLayer().ordinal());
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
            str(out, p.getKey());
            str(out, p.getValue());
        }
        out.writeBoolean(n.linkDown);
    }

    private static NodeState readNode(final DataInputStream in, final int slot, final PoolState st) throws IOException {
        final String id = str(in);
        final String leaf = str(in);
        final String spine = str(in);
        final long cpu = in.readLong();
        final long mem = in.readLong();
        final int gpuCount = in.readInt();
        final List<GpuSpec> gpus = new ArrayList<>(gpuCount);
        for (int g = 0; g < gpuCount; g++) {
            gpus.add(new GpuSpec(str(in), str(in), in.readInt(), in.readInt(), in.readInt()));
        }
        final int hcaCount = in.readInt();
        final List<HcaSpec> hcas = new ArrayList<>(hcaCount);
        for (int h = 0; h < hcaCount; h++) {
            hcas.add(new HcaSpec(str(in), HcaLinkLayer.values()[in.readByte()], in.readInt()));
        }
        final NodeSpec spec = new NodeSpec(id, leaf, spine, cpu, mem, gpus, hcas);
        final NodeState n = new NodeState(slot, spec, in.readInt(), in.readInt(), in.readInt(), 0);
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
            n.badPorts.put(str(in), str(in));
        }
        n.linkDown = in.readBoolean();
        return n;
    }

    // ---- jobs

    private static void jobs(final DataOutputStream out, final LinkedHashMap<String, Job> jobs) throws IOException {
        out.writeInt(jobs.size());
        for (final Job j : jobs.values()) {
            spec(out, j.spec);
            out.writeLong(j.submitSeq);
            out.writeLong(j.submitMs);
            out.writeByte(j.state.ordinal());
            assignments(out, j.placement);
            out.writeInt(j.slots.length);
            for (final int s : j.slots) {
                out.writeInt(s);
            }
            out.writeLong(j.placedAtMs);
            out.writeLong(j.startedAtMs);
            out.writeLong(j.queuedSinceMs);
            out.writeInt(j.evictions);
            out.writeLong(j.estimatedRuntimeMs);
            out.writeBoolean(j.currentReason != null);
            if (j.currentReason != null) {
                reason(out, j.currentReason);
            }
            out.writeBoolean(j.lastDecision != null);
            if (j.lastDecision != null) {
                decision(out, j.lastDecision);
            }
            str(out, j.preemptedBy);
            out.writeBoolean(j.deadlineMissReported);
        }
    }

    private static void readJobs(final DataInputStream in, final LinkedHashMap<String, Job> jobs) throws IOException {
        final int count = in.readInt();
        for (int i = 0; i < count; i++) {
            final JobSpec spec = readSpec(in);
            final Job j = new Job(spec, in.readLong(), in.readLong());
            j.state = JobState.values()[in.readByte()];
            j.placement = readAssignments(in);
            j.slots = new int[in.readInt()];
            for (int k = 0; k < j.slots.length; k++) {
                j.slots[k] = in.readInt();
            }
            j.placedAtMs = in.readLong();
            j.startedAtMs = in.readLong();
            j.queuedSinceMs = in.readLong();
            j.evictions = in.readInt();
            j.estimatedRuntimeMs = in.readLong();
            j.currentReason = in.readBoolean() ? readReason(in) : null;
            j.lastDecision = in.readBoolean() ? readDecision(in) : null;
            j.preemptedBy = str(in);
            j.deadlineMissReported = in.readBoolean();
            jobs.put(j.id(), j);
        }
    }

    private static void spec(final DataOutputStream out, final JobSpec s) throws IOException {
        str(out, s.jobId());
        str(out, s.name());
        str(out, s.tenant());
        out.writeByte(s.priorityClass().ordinal());
        out.writeInt(s.priority());
        out.writeInt(s.nodes());
        out.writeInt(s.gpusPerNode());
        out.writeInt(s.gpuMilli());
        out.writeLong(s.gpuMemoryMib());
        out.writeLong(s.cpuMilliPerNode());
        out.writeLong(s.memoryMibPerNode());
        names(out, s.allowedModels());
        out.writeByte(s.topology().ordinal());
        out.writeBoolean(s.topologyRequired());
        out.writeByte(s.network().ordinal());
        out.writeBoolean(s.preemptible());
        out.writeLong(s.deadlineMs());
        out.writeBoolean(s.rejectIfLate());
        out.writeLong(s.runtimeEstimateMs());
        out.writeBoolean(s.placeNowOrReject());
    }

    private static JobSpec readSpec(final DataInputStream in) throws IOException {
        return new JobSpec(str(in), str(in), str(in), PriorityClass.values()[in.readByte()], in.readInt(),
                in.readInt(), in.readInt(), in.readInt(), in.readLong(), in.readLong(), in.readLong(), readNames(in),
                GangScope.values()[in.readByte()], in.readBoolean(), Network.values()[in.readByte()],
                in.readBoolean(), in.readLong(), in.readBoolean(), in.readLong(), in.readBoolean());
    }

    private static void assignments(final DataOutputStream out, final List<PlacementPart> as) throws IOException {
        out.writeInt(as.size());
        for (final PlacementPart a : as) {
            str(out, a.nodeId());
            out.writeInt(a.gpus().size());
            for (final int g : a.gpus()) {
                out.writeInt(g);
            }
            out.writeInt(a.gpuMilli());
            out.writeLong(a.gpuMemoryMib());
            out.writeLong(a.cpuMilli());
            out.writeLong(a.memoryMib());
        }
    }

    private static List<PlacementPart> readAssignments(final DataInputStream in) throws IOException {
        final int n = in.readInt();
        final List<PlacementPart> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            final String node = str(in);
            final int g = in.readInt();
            final List<Integer> gpus = new ArrayList<>(g);
            for (int k = 0; k < g; k++) {
                gpus.add(in.readInt());
            }
            out.add(new PlacementPart(node, gpus, in.readInt(), in.readLong(), in.readLong(), in.readLong()));
        }
        return List.copyOf(out);
    }

    private static void reason(final DataOutputStream out, final Reason r) throws IOException {
        out.writeShort(r.code().ordinal());
        str(out, r.message());
        out.writeInt(r.evidence().size());
        for (final Map.Entry<String, String> e : r.evidence().entrySet()) {
            str(out, e.getKey());
            str(out, e.getValue());
        }
    }

    private static Reason readReason(final DataInputStream in) throws IOException {
        final ReasonCode code = ReasonCode.values()[in.readShort()];
        final String msg = str(in);
        final int n = in.readInt();
        final Map<String, String> ev = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            ev.put(str(in), str(in));
        }
        return new Reason(code, msg, ev);
    }

    private static void decision(final DataOutputStream out, final Decision d) throws IOException {
        str(out, d.decisionId());
        out.writeLong(d.sequence());
        out.writeLong(d.timestampMs());
        str(out, d.jobId());
        out.writeByte(d.kind().ordinal());
        assignments(out, d.placement());
        out.writeDouble(d.score());
        str(out, d.policy());
        reason(out, d.reason());
        str(out, d.causedBy());
    }

    private static Decision readDecision(final DataInputStream in) throws IOException {
        return new Decision(str(in), in.readLong(), in.readLong(), str(in), DecisionKind.values()[in.readByte()],
                readAssignments(in), in.readDouble(), str(in), readReason(in), str(in));
    }

    // ---- job-size mix

    private static void mix(final DataOutputStream out, final JobSizeMix m) throws IOException {
        out.writeInt(m.window());
        out.writeInt(m.head);
        out.writeInt(m.size);
        out.writeInt(m.sinceRefresh);
        for (int i = 0; i < m.size; i++) {
            shape(out, m.ring[Math.floorMod(m.head - m.size + i, m.window())]);
        }
        out.writeInt(m.typical.length);
        for (int i = 0; i < m.typical.length; i++) {
            shape(out, m.typical[i]);
            out.writeLong(m.weights[i]);
        }
    }

    private static void readMix(final DataInputStream in, final JobSizeMix m) throws IOException {
        final int window = in.readInt();
        if (window != m.window()) {
            throw new IllegalArgumentException("snapshot fgd-window " + window + " differs from the config's "
                    + m.window() + "; restore with the same fgd-window");
        }
        m.head = in.readInt();
        m.size = in.readInt();
        m.sinceRefresh = in.readInt();
        for (int i = 0; i < m.size; i++) {
            m.ring[Math.floorMod(m.head - m.size + i, window)] = readShape(in);
        }
        m.recount();
        final int typical = in.readInt();
        final List<Map.Entry<JobShape, Integer>> entries = new ArrayList<>(typical);
        for (int i = 0; i < typical; i++) {
            entries.add(Map.entry(readShape(in), (int) in.readLong()));
        }
        m.setTypical(entries);
    }

    private static void shape(final DataOutputStream out, final JobShape s) throws IOException {
        out.writeInt(s.gpus());
        out.writeInt(s.milli());
        out.writeLong(s.cpuMilli());
        str(out, s.models());
    }

    private static JobShape readShape(final DataInputStream in) throws IOException {
        return new JobShape(in.readInt(), in.readInt(), in.readLong(), str(in));
    }

    // ---- primitives

    private static void names(final DataOutputStream out, final List<String> names) throws IOException {
        out.writeInt(names.size());
        for (final String n : names) {
            str(out, n);
        }
    }

    private static List<String> readNames(final DataInputStream in) throws IOException {
        final int n = in.readInt();
        final List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(str(in));
        }
        return out;
    }

    private static void str(final DataOutputStream out, final String s) throws IOException {
        final byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String str(final DataInputStream in) throws IOException {
        final int n = in.readInt();
        if (n < 0 || n > in.available()) {
            throw new IOException("string length " + n + " out of range");
        }
        final byte[] b = new byte[n];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }

}
