package io.gpupool.scheduler.stream;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the sequencer remembers about one node between telemetry samples, so that it journals
 * only changes: the inventory it needs (pool, leaf, GPU uuids), the last reported health and
 * utilisation band of each GPU, the derived state and last counters of each fabric port, and
 * when the node last got a journal entry (staleness itself is the engine's: it times out on heartbeats). Mutable; owned by one task.
 */
final class NodeFacts {
    /** Health of a GPU as last journaled: "" = healthy, else its reason code (GpuReasonCodes). */
    String pool;
    String leaf;
    String spine;
    final List<String> gpuUuids = new ArrayList<>();
    final List<String> gpuHealth = new ArrayList<>();
    /** Last band journaled per GPU (TelemetryRules.band's number, 1 = IDLE .. 4 = HIGH), -1 = none yet. */
    final List<Integer> gpuBand = new ArrayList<>();
    /** Critical Xid seen on a GPU, 0 = none; sticky until the node's inventory is published again (reset). */
    final List<Integer> stickyXid = new ArrayList<>();
    final Map<String, PortFacts> ports = new TreeMap<>();
    long lastJournalMs = -1;
    /** Something stored changed since the state was last written (not itself stored). */
    boolean dirty;
    /** Highest uplink utilisation of the node's ports in percent, -1 = unknown. */
    double uplinkPct = -1;
    /** The uplink figure last journaled (UplinkChange), -1 = none or unknown. */
    double journaledUplinkPct = -1;

    /** Derived state and last counters of one HCA port. */
    static final class PortFacts {
        /** LinkHealth name last journaled. */
        String health = "UP";
        long linkDowned = -1;
        long errors = -1;
        long xmitWait = -1;
        /** Stream times of recent link_downed increases (flapping detection). */
        final List<Long> downEvents = new ArrayList<>();
        long lastErrorRiseMs = -1;
    }

    int gpuIndex(final String uuid) {
        return gpuUuids.indexOf(uuid);
    }

    void resetGpus(final List<String> uuids) {
        dirty = true;
        gpuUuids.clear();
        gpuHealth.clear();
        gpuBand.clear();
        stickyXid.clear();
        for (final String u : uuids) {
            gpuUuids.add(u);
            gpuHealth.add("");
            gpuBand.add(-1);
            stickyXid.add(0);
        }
    }

    byte[] toBytes() {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(128 + 64 * gpuUuids.size());
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(3); // format version
            out.writeUTF(pool);
            out.writeUTF(leaf == null ? "" : leaf);
            out.writeUTF(spine == null ? "" : spine);
            out.writeInt(gpuUuids.size());
            for (int i = 0; i < gpuUuids.size(); i++) {
                out.writeUTF(gpuUuids.get(i));
                out.writeUTF(gpuHealth.get(i));
                out.writeInt(gpuBand.get(i));
                out.writeInt(stickyXid.get(i));
            }
            out.writeInt(ports.size());
            for (final Map.Entry<String, PortFacts> e : ports.entrySet()) {
                final PortFacts p = e.getValue();
                out.writeUTF(e.getKey());
                out.writeUTF(p.health);
                out.writeLong(p.linkDowned);
                out.writeLong(p.errors);
                out.writeLong(p.xmitWait);
                out.writeLong(p.lastErrorRiseMs);
                out.writeInt(p.downEvents.size());
                for (final long t : p.downEvents) {
                    out.writeLong(t);
                }
            }
            out.writeLong(lastJournalMs);
            out.writeDouble(uplinkPct);
            out.writeDouble(journaledUplinkPct);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static NodeFacts fromBytes(final byte[] data) {
        final NodeFacts f = new NodeFacts();
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(data))) {
            final int version = in.readByte();
            if (version != 2 && version != 3) {
                throw new IllegalStateException("node facts format " + version + " is not known");
            }
            f.pool = in.readUTF();
            f.leaf = emptyToNull(in.readUTF());
            f.spine = emptyToNull(in.readUTF());
            final int gpus = in.readInt();
            for (int i = 0; i < gpus; i++) {
                f.gpuUuids.add(in.readUTF());
                f.gpuHealth.add(in.readUTF());
                f.gpuBand.add(in.readInt());
                f.stickyXid.add(in.readInt());
            }
            final int ports = in.readInt();
            for (int i = 0; i < ports; i++) {
                final String key = in.readUTF();
                final PortFacts p = new PortFacts();
                p.health = in.readUTF();
                p.linkDowned = in.readLong();
                p.errors = in.readLong();
                p.xmitWait = in.readLong();
                p.lastErrorRiseMs = in.readLong();
                final int n = in.readInt();
                for (int k = 0; k < n; k++) {
                    p.downEvents.add(in.readLong());
                }
                f.ports.put(key, p);
            }
            f.lastJournalMs = in.readLong();
            f.uplinkPct = in.readDouble();
            if (version >= 3) { // format 2 (leaf congestion judged in stage 1) journaled no node figure
                f.journaledUplinkPct = in.readDouble();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return f;
    }

    private static String emptyToNull(final String s) {
        return s.isEmpty() ? null : s;
    }
}
