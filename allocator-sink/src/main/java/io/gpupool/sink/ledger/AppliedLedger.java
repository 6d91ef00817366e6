package io.gpupool.sink.ledger;

import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.NodeCommandType;
import io.gpupool.sink.apply.JobPart;
import io.gpupool.sink.apply.PartKey;
import io.gpupool.sink.ledger.ActivePart.PendingStop;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sink's durable memory: an append-only file of the commands it applied and of the parts it
 * started and settled, one {@link RecordFrame framed} record per line. A command's record is written
 * before the command touches the node, so a sink process that crashes (even SIGKILL: the record is
 * in the OS page cache) skips it when it is redelivered. {@link #sync} forces the file to disk before
 * offsets are committed, so committed progress survives a machine crash too; a machine crash can
 * lose only uncommitted records, whose commands are redelivered and applied again, which is right,
 * since their processes died with the machine. One ledger per sink process (per node agent).
 *
 * <p>Torn appends: a power loss in the middle of an append can leave the last record cut short, or
 * followed by whatever the disk held. Opening cuts such a tail off (a WARN names the byte offset and
 * the record lost; its step counts as not written) before anything is appended, so a new record never
 * lands on a fragment. Damage followed by whole records is no torn append, and opening fails with the
 * file and the byte offset. Ledgers written before records were framed (plain JSON lines) are read
 * and rewritten framed when opened.
 *
 * <p>Size: the file must keep the ids of the newest {@code retainIds} commands (one short record each)
 * and every record of the parts not yet settled; a settled part's records are dropped. Whenever it
 * holds at least {@value #COMPACT_MIN_RECORDS} records and more than twice what it must keep, it is
 * rewritten to what it must keep: when it is opened, and at {@link #sync} (once per poll). So it holds
 * at most max({@value #COMPACT_MIN_RECORDS}, 2 x (retained ids + records of unsettled parts)) records
 * plus one poll's appends: at the default {@value #DEFAULT_RETAIN_IDS} ids and few unsettled parts,
 * about 2 million records of some 60 bytes. Ids older than that are forgotten, also in memory; they
 * matter only if the group's offsets are reset to before them.
 */
public final class AppliedLedger implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AppliedLedger.class);
    public static final String FILE_NAME = "applied-commands.jsonl";
    /** Ids kept by default: far more than a poll batch or a retention period of commands to one sink. */
    public static final int DEFAULT_RETAIN_IDS = 1_000_000;
    /** Below this many records a rewrite is not worth it. */
    static final int COMPACT_MIN_RECORDS = 10_000;

    private final Path file;
    private final int retainIds;
    private FileChannel channel;
    private long records;
    private final Set<String> applied = new LinkedHashSet<>(); // in order: compaction keeps the newest
    /** Unsettled parts by their ALLOCATE's id: a job evicted and placed again on a node has two while the old one stops. */
    private final Map<String, ActivePart> active = new LinkedHashMap<>();
    /** Each unsettled part's records, which compaction keeps. */
    private final Map<String, List<LedgerEntry>> activeRecords = new LinkedHashMap<>();
    /** The newest part of each job on each node, as the sink's tracker has it: the one a stop may stop. */
    private final Map<PartKey, String> newest = new HashMap<>();

    private AppliedLedger(final Path file, final int retainIds) {
        this.file = file;
        this.retainIds = retainIds;
    }

    /** Opens (or creates) the ledger in {@code stateDir} and replays it. */
    public static AppliedLedger open(final Path stateDir) throws IOException {
        return open(stateDir, DEFAULT_RETAIN_IDS);
    }

    /** Opens the ledger, keeping at least the newest {@code retainIds} command ids when it compacts. */
    public static AppliedLedger open(final Path stateDir, final int retainIds) throws IOException {
        Files.createDirectories(stateDir);
        final Path file = stateDir.resolve(FILE_NAME);
        final LedgerScan.Result scan = LedgerScan.scan(file);
        final AppliedLedger ledger = new AppliedLedger(file, retainIds);
        scan.records().forEach(r -> ledger.replay(r.entry()));
        ledger.records = scan.records().size();
        if (scan.tail().isPresent()) {
            final LedgerScan.Torn torn = scan.tail().get();
            LOG.warn("ledger {}: cutting off a torn last record at byte offset {} ({} bytes: {}); {} is lost and counts"
                            + " as not written. It read: {}", file, torn.offset(), torn.length(), torn.problem(),
                    torn.lost(), torn.preview());
            cutAt(file, torn.offset());
        }
        if (scan.hasLegacy()) {
            ledger.rewrite("rewrote the plain JSON lines of an older sink as framed records");
        } else if (ledger.worthCompacting()) {
            ledger.rewrite("compacted");
        }
        ledger.channel = openForAppend(file);
        LOG.info("ledger {}: {} commands applied, {} parts to resume", file, ledger.applied.size(), ledger.active.size());
        return ledger;
    }

    private static FileChannel openForAppend(final Path file) throws IOException {
        return FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    }

    private static void cutAt(final Path file, final long offset) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(offset);
            ch.force(true); // the cut is on disk before anything is appended after it
        }
    }

    private void replay(final LedgerEntry e) {
        applied.add(e.commandId());
        switch (e.kind()) {
            case LedgerEntry.ID -> {
                // only the id
            }
            case LedgerEntry.APPLIED -> {
                if (NodeCommandType.ALLOCATE.name().equals(e.type())) {
                    if (e.part() != null) {
                        final JobPart part = e.part().toPart(e.jobId(), e.nodeId(), e.decisionId(), e.placementId(),
                                e.commandId());
                        active.put(e.commandId(), new ActivePart(part, -1L, e.at(), Optional.empty(), Optional.empty()));
                        activeRecords.put(e.commandId(), new ArrayList<>(List.of(e)));
                        newest.put(part.key(), e.commandId());
                    }
                } else {
                    stopApplied(e);
                }
            }
            case LedgerEntry.STARTED -> update(e, a -> new ActivePart(a.part(), e.pid() == null ? -1L : e.pid(), e.at(),
                    a.pendingStop(), a.outcome()));
            case LedgerEntry.OUTCOME -> update(e, a -> new ActivePart(a.part(), a.pid(), a.startedAtMillis(),
                    a.pendingStop(), Optional.ofNullable(e.event())));
            case LedgerEntry.ENDED -> {
                final ActivePart a = active.remove(e.commandId());
                if (a != null) {
                    activeRecords.remove(e.commandId());
                    newest.remove(a.part().key(), e.commandId());
                }
            }
            default -> LOG.warn("ledger {}: unknown record kind {}", file, e.kind());
        }
    }

    /**
     * A stop takes the newest part of its job on its node when the sink would have stopped it: the
     * part was neither stopped nor ended before, and the stop names its placement or none.
     */
    private void stopApplied(final LedgerEntry e) {
        final String id = newest.get(new PartKey(e.jobId(), e.nodeId()));
        final ActivePart a = id == null ? null : active.get(id);
        if (a == null || a.pendingStop().isPresent() || a.outcome().isPresent()
                || (e.placementId() != null && !e.placementId().equals(a.part().placementId()))) {
            return;
        }
        active.put(id, new ActivePart(a.part(), a.pid(), a.startedAtMillis(), Optional.of(new PendingStop(e.commandId(),
                e.type(), e.decisionId(), e.placementId(), e.reason())), a.outcome()));
        activeRecords.get(id).add(e);
    }

    private void update(final LedgerEntry e, final UnaryOperator<ActivePart> change) {
        final ActivePart a = active.get(e.commandId());
        if (a != null) {
            active.put(e.commandId(), change.apply(a));
            activeRecords.get(e.commandId()).add(e);
        }
    }

    /** Whether a command was applied before (by this process or one before it). */
    public synchronized boolean isApplied(final String commandId) {
        return applied.contains(commandId);
    }

    /**
     * Records that a command takes effect; survives a crash of this process once this returns. An
     * ALLOCATE's record carries its part; a stop's the placement it names (null when it names none).
     */
    public synchronized void applied(final NodeCommand c, final Optional<JobPart> allocated, final long atMillis) {
        final String placement = allocated.map(JobPart::placementId).orElse(c.getPlacementId());
        append(new LedgerEntry(LedgerEntry.APPLIED, c.getCommandId(), c.getType().name(), c.getJobId(), c.getNodeId(),
                c.getDecisionId(), placement, atMillis, null, c.getReason(),
                allocated.map(LedgerEntry.Part::of).orElse(null), null));
    }

    /** Records that a part runs (pid -1 when it has no process). */
    public synchronized void started(final JobPart part, final long pid, final long atMillis) {
        append(partRecord(LedgerEntry.STARTED, part, atMillis, pid, null, null));
    }

    /** Records how a part ended, before its event is sent: a restarted sink sends it again if no {@link #ended} follows. */
    public synchronized void outcome(final JobPart part, final LedgerEntry.Event event) {
        append(partRecord(LedgerEntry.OUTCOME, part, System.currentTimeMillis(), null, null, event));
    }

    /** Records that a part is settled: its end is reported (in Kafka) and nothing is left to do for it. */
    public synchronized void ended(final JobPart part, final String reason) {
        append(partRecord(LedgerEntry.ENDED, part, System.currentTimeMillis(), null, reason, null));
    }

    private static LedgerEntry partRecord(final String kind, final JobPart part, final long at, final Long pid,
                                          final String reason, final LedgerEntry.Event event) {
        return new LedgerEntry(kind, part.commandId(), null, part.jobId(), part.nodeId(), part.decisionId(),
                part.placementId(), at, pid, reason, null, event);
    }

    /** Parts not settled yet: at open, what the previous sink process left to resume. */
    public synchronized List<ActivePart> unsettled() {
        return List.copyOf(active.values());
    }

    private void append(final LedgerEntry entry) {
        write(channel, RecordFrame.encode(entry.toJson()));
        // After the write: memory never knows a record the file does not hold.
        replay(entry);
        records++;
    }

    private void write(final FileChannel ch, final byte[] bytes) {
        try {
            final ByteBuffer buf = ByteBuffer.wrap(bytes);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot write the ledger " + file, e);
        }
    }

    /**
     * Forces what was written to disk; called before offsets are committed (fsync once per poll, not
     * per record). Compacts the file when it has grown past its bound (see the class comment).
     */
    public synchronized void sync() {
        try {
            channel.force(false);
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot sync the ledger " + file, e);
        }
        if (worthCompacting()) {
            compactWhileOpen();
        }
    }

    private void compactWhileOpen() {
        try {
            rewrite("compacted");
        } catch (final IOException | UncheckedIOException e) {
            // The old file is whole (the rewrite replaces it only once complete): carry on with it.
            LOG.warn("ledger {}: could not compact, carrying on with the file as it is: {}", file, e.toString());
            return;
        }
        try {
            final FileChannel old = channel;
            channel = openForAppend(file);
            old.close();
        } catch (final IOException e) {
            // Appends would go to the replaced file: stop rather than lose them.
            throw new UncheckedIOException("cannot reopen the ledger " + file + " after compacting it", e);
        }
    }

    /** Records in the file now. */
    synchronized long records() {
        return records;
    }

    private boolean worthCompacting() {
        long partRecords = 0;
        for (final List<LedgerEntry> r : activeRecords.values()) {
            partRecords += r.size();
        }
        return records >= COMPACT_MIN_RECORDS && records > 2 * (Math.min(applied.size(), retainIds) + partRecords);
    }

    /** What the file must keep: the newest ids (those of unsettled parts come with their records), then those records. */
    private List<LedgerEntry> kept() {
        final Set<String> inParts = new HashSet<>();
        activeRecords.values().forEach(list -> list.forEach(e -> inParts.add(e.commandId())));
        final List<LedgerEntry> out = new ArrayList<>();
        int skip = Math.max(0, applied.size() - retainIds);
        for (final Iterator<String> it = applied.iterator(); it.hasNext(); ) {
            final String id = it.next();
            if (skip > 0) {
                skip--;
            } else if (!inParts.contains(id)) {
                out.add(LedgerEntry.idOnly(id));
            }
        }
        activeRecords.values().forEach(out::addAll);
        return out;
    }

    /** Replaces the file with what it must keep, and memory with what the new file says. */
    private void rewrite(final String why) throws IOException {
        final List<LedgerEntry> kept = kept();
        final Path tmp = file.resolveSibling(file.getFileName() + ".compact");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            for (final LedgerEntry e : kept) {
                write(ch, RecordFrame.encode(e.toJson()));
            }
            ch.force(true);
        }
        // Atomic: a crash leaves the old ledger or the new one, never neither.
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        syncDirectory();
        final long before = records;
        applied.clear();
        active.clear();
        activeRecords.clear();
        newest.clear();
        kept.forEach(this::replay);
        records = kept.size();
        LOG.info("ledger {}: {} ({} records to {})", file, why, before, records);
    }

    /** The rename is durable only once the directory is on disk too. */
    private void syncDirectory() {
        try (FileChannel dir = FileChannel.open(file.toAbsolutePath().getParent(), StandardOpenOption.READ)) {
            dir.force(true);
        } catch (final IOException e) {
            LOG.debug("ledger {}: cannot sync its directory ({}); the rename is durable once the OS writes it", file,
                    e.toString());
        }
    }

    public Path file() {
        return file;
    }

    @Override
    public synchronized void close() throws IOException {
        channel.force(false);
        channel.close();
    }
}
