package io.gpupool.sink.ledger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpupool.avro.NodeCommand;
import io.gpupool.sink.apply.JobPart;
import io.gpupool.sink.apply.PartKey;
import io.gpupool.sink.ledger.ActivePart.PendingStop;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sink's durable memory: an append-only JSON-lines file of the commands it applied and of the
 * parts it started and settled. A command's line is written before the command touches the node,
 * so a sink process that crashes (even SIGKILL: the line is in the OS page cache) skips it when it
 * is redelivered. {@link #sync} forces the file to disk before offsets are committed, so committed
 * progress survives a machine crash too; a machine crash can lose only uncommitted lines, whose
 * commands are redelivered and applied again, which is right, since their processes died with the
 * machine. One ledger per sink process (per node agent).
 *
 * <p>Opening compacts the file when it has grown to more than twice what it must keep: the ids of
 * the last {@code retainIds} commands (one short line each) and the full lines of unsettled parts.
 * Ids older than that are forgotten; they matter only if the group's offsets are reset to before them.
 */
public final class AppliedLedger implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AppliedLedger.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    public static final String FILE_NAME = "applied-commands.jsonl";
    /** Ids kept by default: far more than a poll batch or a retention period of commands to one sink. */
    public static final int DEFAULT_RETAIN_IDS = 1_000_000;
    private static final int COMPACT_MIN_LINES = 10_000;

    private final Path file;
    private final FileChannel channel;
    private final Set<String> applied = new LinkedHashSet<>(); // in order: compaction keeps the newest
    private final Map<PartKey, ActivePart> active = new LinkedHashMap<>();

    private AppliedLedger(final Path file, final FileChannel channel) {
        this.file = file;
        this.channel = channel;
    }

    /** Opens (or creates) the ledger in {@code stateDir} and replays it. */
    public static AppliedLedger open(final Path stateDir) throws IOException {
        return open(stateDir, DEFAULT_RETAIN_IDS);
    }

    /** Opens the ledger, keeping at least the newest {@code retainIds} command ids when it compacts. */
    public static AppliedLedger open(final Path stateDir, final int retainIds) throws IOException {
        Files.createDirectories(stateDir);
        final Path file = stateDir.resolve(FILE_NAME);
        List<LedgerEntry> entries = read(file);
        final List<LedgerEntry> compacted = compact(entries, retainIds);
        if (entries.size() >= COMPACT_MIN_LINES && entries.size() > 2 * compacted.size()) {
            rewrite(file, compacted);
            LOG.info("ledger {}: compacted {} lines to {}", file, entries.size(), compacted.size());
            entries = compacted;
        }
        final FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND);
        final AppliedLedger ledger = new AppliedLedger(file, channel);
        entries.forEach(ledger::replay);
        LOG.info("ledger {}: {} commands applied, {} parts to resume", file, ledger.applied.size(), ledger.active.size());
        return ledger;
    }

    /** The lines a ledger must keep: newest ids, then each unsettled part's allocate, start and stop lines. */
    static List<LedgerEntry> compact(final List<LedgerEntry> entries, final int retainIds) {
        final Set<String> ids = new LinkedHashSet<>();
        final Map<PartKey, List<LedgerEntry>> open = new LinkedHashMap<>();
        for (final LedgerEntry e : entries) {
            ids.add(e.commandId());
            if (LedgerEntry.ID.equals(e.kind())) {
                continue;
            }
            final PartKey key = new PartKey(e.jobId(), e.nodeId());
            if (LedgerEntry.APPLIED.equals(e.kind()) && "ALLOCATE".equals(e.type()) && e.part() != null) {
                open.put(key, new ArrayList<>(List.of(e)));
            } else if (LedgerEntry.ENDED.equals(e.kind())) {
                final List<LedgerEntry> lines = open.get(key);
                if (lines != null && lines.get(0).commandId().equals(e.commandId())) {
                    open.remove(key);
                }
            } else if (open.containsKey(key)) {
                open.get(key).add(e);
            }
        }
        final List<LedgerEntry> out = new ArrayList<>();
        final int skip = Math.max(0, ids.size() - retainIds);
        int i = 0;
        for (final String id : ids) {
            if (i++ >= skip) {
                out.add(new LedgerEntry(LedgerEntry.ID, id, null, null, null, null, null, null, null, null, null));
            }
        }
        open.values().forEach(out::addAll);
        return out;
    }

    private static void rewrite(final Path file, final List<LedgerEntry> entries) throws IOException {
        final Path tmp = file.resolveSibling(file.getFileName() + ".compact");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            for (final LedgerEntry e : entries) {
                final ByteBuffer buf = ByteBuffer.wrap((JSON.writeValueAsString(e) + "\n").getBytes(StandardCharsets.UTF_8));
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
            }
            ch.force(true);
        }
        // Atomic: a crash leaves the old ledger or the compacted one, never neither.
        java.nio.file.Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    private static List<LedgerEntry> read(final Path file) throws IOException {
        final List<LedgerEntry> entries = new ArrayList<>();
        if (!Files.exists(file)) {
            return entries;
        }
        final List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            final String line = lines.get(i);
            if (line.isBlank()) {
                continue;
            }
            try {
                entries.add(JSON.readValue(line, LedgerEntry.class));
            } catch (final JsonProcessingException e) {
                if (i == lines.size() - 1) {
                    // A crash in the middle of the last append: that command was not recorded as applied.
                    LOG.warn("ledger {}: ignoring a torn last line", file);
                } else {
                    throw new IOException("ledger " + file + " line " + (i + 1) + " is corrupt: " + e.getOriginalMessage(), e);
                }
            }
        }
        return entries;
    }

    private void replay(final LedgerEntry e) {
        if (LedgerEntry.ID.equals(e.kind())) {
            applied.add(e.commandId());
            return;
        }
        final PartKey key = new PartKey(e.jobId(), e.nodeId());
        switch (e.kind()) {
            case LedgerEntry.APPLIED -> {
                applied.add(e.commandId());
                if ("ALLOCATE".equals(e.type()) && e.part() != null) {
                    final JobPart part = e.part().toPart(e.jobId(), e.nodeId(), e.decisionId(), e.commandId());
                    active.put(key, new ActivePart(part, -1L, e.at(), Optional.empty(), Optional.empty()));
                } else if (!"ALLOCATE".equals(e.type())) {
                    active.computeIfPresent(key, (k, a) -> new ActivePart(a.part(), a.pid(), a.startedAtMillis(),
                            Optional.of(new PendingStop(e.commandId(), e.type(), e.decisionId(), e.reason())), a.outcome()));
                }
            }
            case LedgerEntry.STARTED -> active.computeIfPresent(key, (k, a) -> a.part().commandId().equals(e.commandId())
                    ? new ActivePart(a.part(), e.pid() == null ? -1L : e.pid(), e.at(), a.pendingStop(), a.outcome()) : a);
            case LedgerEntry.OUTCOME -> active.computeIfPresent(key, (k, a) -> a.part().commandId().equals(e.commandId())
                    ? new ActivePart(a.part(), a.pid(), a.startedAtMillis(), a.pendingStop(), Optional.ofNullable(e.event()))
                    : a);
            case LedgerEntry.ENDED -> {
                final ActivePart a = active.get(key);
                if (a != null && a.part().commandId().equals(e.commandId())) {
                    active.remove(key);
                }
            }
            default -> LOG.warn("ledger {}: unknown entry kind {}", file, e.kind());
        }
    }

    /** Whether a command was applied before (by this process or one before it). */
    public synchronized boolean isApplied(final String commandId) {
        return applied.contains(commandId);
    }

    /** Records that a command takes effect; survives a crash of this process once this returns. */
    public synchronized void applied(final NodeCommand c, final Optional<JobPart> allocated, final long atMillis) {
        append(new LedgerEntry(LedgerEntry.APPLIED, c.getCommandId(), c.getType().name(), c.getJobId(), c.getNodeId(),
                c.getDecisionId(), atMillis, null, c.getReason(), allocated.map(LedgerEntry.Part::of).orElse(null), null));
    }

    /** Records that a part runs (pid -1 when it has no process). */
    public synchronized void started(final JobPart part, final long pid, final long atMillis) {
        append(new LedgerEntry(LedgerEntry.STARTED, part.commandId(), null, part.jobId(), part.nodeId(),
                part.decisionId(), atMillis, pid, null, null, null));
    }

    /** Records how a part ended, before its event is sent: a restarted sink sends it again if no {@link #ended} follows. */
    public synchronized void outcome(final JobPart part, final LedgerEntry.Event event) {
        append(new LedgerEntry(LedgerEntry.OUTCOME, part.commandId(), null, part.jobId(), part.nodeId(),
                part.decisionId(), System.currentTimeMillis(), null, null, null, event));
    }

    /** Records that a part is settled: its end is reported (in Kafka) and nothing is left to do for it. */
    public synchronized void ended(final JobPart part, final String reason) {
        append(new LedgerEntry(LedgerEntry.ENDED, part.commandId(), null, part.jobId(), part.nodeId(),
                part.decisionId(), System.currentTimeMillis(), null, reason, null, null));
    }

    /** Parts left unsettled by the previous sink process, as read when the ledger was opened. */
    public synchronized List<ActivePart> unsettled() {
        return List.copyOf(active.values());
    }

    private void append(final LedgerEntry entry) {
        replay(entry);
        try {
            final byte[] line = (JSON.writeValueAsString(entry) + "\n").getBytes(StandardCharsets.UTF_8);
            final ByteBuffer buf = ByteBuffer.wrap(line);
            while (buf.hasRemaining()) {
                channel.write(buf);
            }
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot write the ledger " + file, e);
        }
    }

    /** Forces what was written to disk; called before offsets are committed (fsync once per poll, not per line). */
    public synchronized void sync() {
        try {
            channel.force(false);
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot sync the ledger " + file, e);
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
