package io.gpupool.scheduler.journal;

import io.gpupool.avro.GpuCondition;
import java.util.ArrayList;
import java.util.List;

/**
 * A GPU health fact's reason code: its conditions as the strings humans, dashboards and the node
 * state read ("XID+OVERHEAT"). Spelled out rather than the constants' names, so that a renamed
 * constant does not change the codes; journals from before typed conditions are read back by them.
 */
public final class GpuReasonCodes {
    private GpuReasonCodes() {
    }

    public static String code(final GpuCondition c) {
        return switch (c) {
            case XID -> "XID";
            case ECC_UNCORRECTABLE -> "ECC_UNCORRECTABLE";
            case ROW_REMAP_FAILURE -> "ROW_REMAP_FAILURE";
            case ROW_REMAP_PENDING -> "ROW_REMAP_PENDING";
            case OVERHEAT -> "OVERHEAT";
            case UNKNOWN -> "UNKNOWN";
        };
    }

    /** The conditions '+'-joined, dominant first; "" for none (healthy). */
    public static String joined(final List<GpuCondition> conditions) {
        final List<String> codes = new ArrayList<>(conditions.size());
        for (final GpuCondition c : conditions) {
            codes.add(code(c));
        }
        return String.join("+", codes);
    }
}
