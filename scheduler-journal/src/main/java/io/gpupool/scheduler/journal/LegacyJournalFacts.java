package io.gpupool.scheduler.journal;

import io.gpupool.avro.GpuCondition;
import io.gpupool.avro.GpuHealthChange;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.Tick;
import io.gpupool.scheduler.core.PoolEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How stage 2 reads journal entries written before stage 1 journaled every fact the placer needs as
 * a typed field. In such an entry the new fields are null and the facts are only text or names: a
 * GPU only by its uuid, its conditions in the reason code, its temperature in the evidence, a
 * heartbeat's node as the source record's key. Only pre-change journals take these paths (the
 * committed golden history is one; recorded journals must replay as they were decided); entries
 * stage 1 writes today never do. The one place where stage 2 reads facts out of strings: keep it so.
 */
final class LegacyJournalFacts {
    private static final Pattern TEMPERATURE = Pattern.compile("temperature (-?\\d+) C");

    private LegacyJournalFacts() {
    }

    /** Whether a GPU health entry predates typed conditions (and then its temperature too). */
    static boolean isLegacy(final GpuHealthChange h) {
        return h.getConditions() == null;
    }

    /** The conditions of a pre-change entry: its reason code, '+'-joined; codes the engine has no use for are left out. */
    static List<GpuCondition> conditions(final GpuHealthChange h) {
        final String rc = h.getReasonCode() == null ? "" : h.getReasonCode();
        final List<GpuCondition> out = new ArrayList<>(4);
        for (final String code : rc.isEmpty() ? new String[0] : rc.split("\\+")) {
            for (final GpuCondition c : GpuCondition.values()) {
                // e.g. STALE_TELEMETRY matches none: the engine judges staleness on its own
                if (c != GpuCondition.UNKNOWN && GpuReasonCodes.code(c).equals(code)) {
                    out.add(c);
                }
            }
        }
        return out;
    }

    /** The temperature a pre-change entry wrote into its evidence ("temperature 94 C"), or null. */
    static Double temperatureC(final GpuHealthChange h) {
        final Matcher m = TEMPERATURE.matcher(h.getEvidence() == null ? "" : h.getEvidence());
        return m.find() ? Double.valueOf(Integer.parseInt(m.group(1))) : null;
    }

    /** The index of a GPU a pre-change entry named only by uuid, as the engine lists the node's GPUs; -1 if unknown. */
    static int gpuIndex(final PoolEngine engine, final GpuUuids uuids, final String nodeId, final String uuid) {
        return uuids.index(engine, nodeId, uuid);
    }

    /** The node of a pre-change heartbeat tick (reason "heartbeat", node = the source record's key), or null. */
    static String heartbeatNode(final Tick t, final JournalEntry entry) {
        if (JournalApplier.HEARTBEAT.equals(t.getReason()) && entry.getSource() != null) {
            return entry.getSource().getKey();
        }
        return null;
    }
}
