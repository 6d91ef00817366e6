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
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sink's durable memory: an append-only JSON-lines file of the commands it applied and of the
 * parts it started and settled. Each line is forced to disk before the sink moves on, and offsets
 * are committed only after that, so a sink restarted after a crash skips every command it already
 * applied and resumes the parts that were running. One ledger per sink process (per node agent).
 *
 * <p>The file only grows; it holds about 200 bytes per command. Rotating it once its ids are
 * older than the topic's retention is left to a later change.
 */
public final class AppliedLedger implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AppliedLedger.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    public static final String FILE_NAME = "applied-commands.jsonl";

    private final Path file;
    private final FileChannel channel;
    private final Set<String> applied = new HashSet<>();
    private final Map<PartKey, ActivePart> active = new LinkedHashMap<>();

    private AppliedLedger(final Path file, final FileChannel channel) {
        this.file = file;
        this.channel = channel;
    }

    /** Opens (or creates) the ledger in {@code stateDir} and replays it. */
    public static AppliedLedger open(final Path stateDir) throws IOException {
        Files.createDirectories(stateDir);
        final Path file = stateDir.resolve(FILE_NAME);
        final List<LedgerEntry> entries = read(file);
        final FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND);
        final AppliedLedger ledger = new AppliedLedger(file, channel);
        entries.forEach(ledger::replay);
        LOG.info("ledger {}: {} commands applied, {} parts to resume", file, ledger.applied.size(), ledger.active.size());
        return ledger;
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
        final PartKey key = new PartKey(e.jobId(), e.nodeId());
        switch (e.kind()) {
            case LedgerEntry.APPLIED -> {
                applied.add(e.commandId());
                if ("ALLOCATE".equals(e.type()) && e.part() != null) {
                    final JobPart part = e.part().toPart(e.jobId(), e.nodeId(), e.decisionId(), e.commandId());
                    active.put(key, new ActivePart(part, -1L, e.at(), Optional.empty()));
                } else if (!"ALLOCATE".equals(e.type())) {
                    active.computeIfPresent(key, (k, a) -> new ActivePart(a.part(), a.pid(), a.startedAtMillis(),
                            Optional.of(new PendingStop(e.commandId(), e.type(), e.decisionId(), e.reason()))));
                }
            }
            case LedgerEntry.STARTED -> active.computeIfPresent(key, (k, a) -> a.part().commandId().equals(e.commandId())
                    ? new ActivePart(a.part(), e.pid() == null ? -1L : e.pid(), e.at(), a.pendingStop()) : a);
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

    /** Records that a command took effect; durable when this returns. */
    public synchronized void applied(final NodeCommand c, final Optional<JobPart> allocated, final long atMillis) {
        append(new LedgerEntry(LedgerEntry.APPLIED, c.getCommandId(), c.getType().name(), c.getJobId(), c.getNodeId(),
                c.getDecisionId(), atMillis, null, c.getReason(), allocated.map(LedgerEntry.Part::of).orElse(null)));
    }

    /** Records that a part runs (pid -1 when it has no process). */
    public synchronized void started(final JobPart part, final long pid, final long atMillis) {
        append(new LedgerEntry(LedgerEntry.STARTED, part.commandId(), null, part.jobId(), part.nodeId(),
                part.decisionId(), atMillis, pid, null, null));
    }

    /** Records that a part is settled: its end was reported and nothing is left to do for it. */
    public synchronized void ended(final JobPart part, final String reason) {
        append(new LedgerEntry(LedgerEntry.ENDED, part.commandId(), null, part.jobId(), part.nodeId(),
                part.decisionId(), System.currentTimeMillis(), null, reason, null));
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
            channel.force(false);
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot write the ledger " + file, e);
        }
    }

    public Path file() {
        return file;
    }

    @Override
    public synchronized void close() throws IOException {
        channel.close();
    }
}
