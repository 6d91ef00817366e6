package io.gpupool.scheduler.audit.reality;

import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.NodeCommandType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The node commands the sinks were sent, indexed the ways job events name them: by command id (an
 * APPLIED names the command applied, a part event the ALLOCATE, EVICTED the EVICT) and by part (the
 * ALLOCATE that created it). A command's placement is its {@code placementId}; records written before
 * that field have none, and then an ALLOCATE's placement is its own decision id and a RELEASE's or
 * EVICT's is the job's latest ALLOCATE to that node caused at or before it (what it could end).
 */
final class Commanded {
    private final Map<String, NodeCommand> byId = new LinkedHashMap<>();
    private final Map<String, String> placementOfCommand = new HashMap<>();
    private final Map<PartKey, NodeCommand> allocations = new LinkedHashMap<>();
    private final Map<String, String> poolOfPlacement = new HashMap<>();
    private final Map<String, String> poolOfNode = new HashMap<>();

    Commanded(final List<NodeCommand> commands) {
        for (final NodeCommand c : commands) {
            // the first record of an id is the command: a later copy (a resend, a forgery) is not another one
            byId.putIfAbsent(c.getCommandId(), c);
        }
        final Map<String, List<NodeCommand>> allocationsOfJobOnNode = new HashMap<>();
        for (final NodeCommand c : byId.values()) {
            poolOfNode.putIfAbsent(c.getNodeId(), c.getPool());
            if (c.getType() == NodeCommandType.ALLOCATE) {
                final String placement = c.getPlacementId() != null ? c.getPlacementId() : c.getDecisionId();
                placementOfCommand.put(c.getCommandId(), placement);
                allocations.putIfAbsent(new PartKey(placement, c.getNodeId()), c);
                poolOfPlacement.putIfAbsent(placement, c.getPool());
                allocationsOfJobOnNode.computeIfAbsent(c.getJobId() + "|" + c.getNodeId(), k -> new ArrayList<>()).add(c);
            }
        }
        for (final NodeCommand c : byId.values()) {
            if (c.getType() != NodeCommandType.ALLOCATE) {
                final String placement = c.getPlacementId() != null ? c.getPlacementId()
                        : latestBefore(allocationsOfJobOnNode.getOrDefault(c.getJobId() + "|" + c.getNodeId(), List.of()), c);
                if (placement != null) {
                    placementOfCommand.put(c.getCommandId(), placement);
                }
            }
        }
    }

    private String latestBefore(final List<NodeCommand> allocations, final NodeCommand stop) {
        NodeCommand best = null;
        for (final NodeCommand a : allocations) {
            if (!causedAfter(a, stop) && (best == null || causedAfter(a, best))) {
                best = a;
            }
        }
        return best == null ? null : placementOfCommand.get(best.getCommandId());
    }

    /** A job's commands come from one journal partition; across partitions only the entry times compare. */
    private static boolean causedAfter(final NodeCommand a, final NodeCommand b) {
        return a.getCause().getPartition() == b.getCause().getPartition()
                ? a.getCause().getOffset() > b.getCause().getOffset()
                : a.getCause().getTimestamp().isAfter(b.getCause().getTimestamp());
    }

    /** The command with this id, or null when none was sent (or it is no longer on record). */
    NodeCommand command(final String commandId) {
        return commandId == null ? null : byId.get(commandId);
    }

    /** The placement a command is about, or null for a stop of a placement never allocated on its node. */
    String placementOf(final NodeCommand c) {
        return placementOfCommand.get(c.getCommandId());
    }

    /** The ALLOCATE of every part, in the order the commands came. */
    Map<PartKey, NodeCommand> allocations() {
        return allocations;
    }

    /** Every command once (the first record of its id). */
    Collection<NodeCommand> all() {
        return byId.values();
    }

    /** The pool of a placement, else of a node, from the commands sent; null when neither was ever commanded. */
    String poolOf(final String placementId, final String nodeId) {
        final String byPlacement = placementId == null ? null : poolOfPlacement.get(placementId);
        return byPlacement != null ? byPlacement : nodeId == null ? null : poolOfNode.get(nodeId);
    }
}
