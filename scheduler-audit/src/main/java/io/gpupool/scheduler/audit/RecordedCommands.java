package io.gpupool.scheduler.audit;

import io.gpupool.avro.NodeCommand;
import java.util.List;
import java.util.Map;

/**
 * The recorded node commands indexed by the journal entry that caused them, like
 * {@link RecordedDecisions}. Within an entry they are matched by command id and type (a deterministic
 * pair; a repeat of the pair in one entry is numbered in order, and a node's commands keep their order
 * on the topic because it is keyed by node).
 *
 * <p>The node-commands topic is not kept forever (delete policy, long retention) while the journal is:
 * {@code completeFrom} says, per journal partition, from which journal offset on the recorded commands
 * are complete. Commands of earlier entries are not compared; {@link Long#MAX_VALUE} means none of that
 * partition's commands can be compared.
 */
public final class RecordedCommands {
    private final boolean audited;
    private final String whyNotAudited;
    private final Map<Integer, Long> completeFrom;
    private final ByCause<NodeCommand> byCause = new ByCause<>();
    private int size;

    private RecordedCommands(final boolean audited, final String whyNotAudited, final Map<Integer, Long> completeFrom) {
        this.audited = audited;
        this.whyNotAudited = whyNotAudited;
        this.completeFrom = Map.copyOf(completeFrom);
    }

    /** Every command ever recorded (nothing deleted by retention). */
    public static RecordedCommands of(final Iterable<NodeCommand> commands) {
        return of(commands, Map.of());
    }

    /**
     * @param completeFrom per journal partition, the first journal offset whose commands are all on
     *                     record (absent: all of them); recorded commands caused before it are dropped
     */
    public static RecordedCommands of(final Iterable<NodeCommand> commands, final Map<Integer, Long> completeFrom) {
        final RecordedCommands r = new RecordedCommands(true, null, completeFrom);
        for (final NodeCommand c : commands) {
            if (r.compares(c.getCause().getPartition(), c.getCause().getOffset())) {
                r.add(c);
            }
        }
        return r;
    }

    /** No commands to compare: the audit checks decisions only. */
    public static RecordedCommands notAudited() {
        return new RecordedCommands(false, null, Map.of());
    }

    /** No commands to compare, for a reason the report gives ("topic X does not exist"). */
    public static RecordedCommands notAudited(final String why) {
        return new RecordedCommands(false, why, Map.of());
    }

    public boolean audited() {
        return audited;
    }

    /** Why commands are not compared (null when they are, or when no reason was given). */
    public String whyNotAudited() {
        return whyNotAudited;
    }

    public Map<Integer, Long> completeFrom() {
        return completeFrom;
    }

    /** Whether the commands caused by this journal entry are compared. */
    boolean compares(final int partition, final long offset) {
        return audited && offset >= completeFrom.getOrDefault(partition, Long.MIN_VALUE);
    }

    private void add(final NodeCommand c) {
        final Map<String, NodeCommand> at = byCause.at(c.getCause().getPartition(), c.getCause().getOffset());
        String key = key(c);
        for (int n = 2; at.containsKey(key); n++) {
            key = key(c) + "#" + n;
        }
        at.put(key, c);
        size++;
    }

    /** The matching key of a command: command id and type ({@code #n} is added for the n-th repeat in one entry). */
    static String key(final NodeCommand c) {
        return c.getCommandId() + "|" + c.getType();
    }

    /** Removes and returns the commands caused by one entry (empty map when none). */
    Map<String, NodeCommand> take(final int partition, final long offset) {
        return byCause.take(partition, offset);
    }

    /** Commands not taken yet whose cause lies in [from, to] of a partition, in offset order. */
    List<NodeCommand> remaining(final int partition, final long from, final long to) {
        return byCause.remaining(partition, from, to);
    }

    public int size() {
        return size;
    }
}
