package io.gpupool.scheduler.audit;

import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.core.EngineConfig;
import io.gpupool.scheduler.core.PoolEngine;
import io.gpupool.scheduler.journal.Applied;
import io.gpupool.scheduler.journal.EngineSnapshot;
import io.gpupool.scheduler.journal.JournalApplier;
import io.gpupool.scheduler.journal.JournalRecord;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Replays journal files through the journal applier and the engine, as the placer does, and writes
 * every byte a replay must reproduce: the decisions and node commands (their Avro binary form) and
 * engine snapshots with their job book, every {@link #SNAPSHOT_EVERY} entries and at the end. Run in
 * this JVM and, as {@link #main}, in another one; their files are compared byte for byte.
 *
 * <p>Input {@code NAME.journal} ({@link JournalFile}) with {@code NAME.settings} (engine settings as
 * properties); output {@code NAME.decisions}, {@code NAME.commands}, {@code NAME.snapshots} (each a
 * sequence of int length + bytes) and {@code NAME.decisions.txt} for a human reading a difference.
 */
final class ReplayBytes {
    static final String DECISIONS = ".decisions";
    static final String COMMANDS = ".commands";
    static final String SNAPSHOTS = ".snapshots";
    static final String DECISIONS_TEXT = ".decisions.txt";
    private static final int SNAPSHOT_EVERY = 1_000;

    private ReplayBytes() {
    }

    /** Args: the folder with NAME.journal and NAME.settings, the folder to write to, the names. */
    public static void main(final String[] args) throws IOException {
        for (int i = 2; i < args.length; i++) {
            replay(Path.of(args[0]), args[i], Path.of(args[1]));
        }
    }

    static void replay(final Path in, final String name, final Path out) throws IOException {
        final Properties settings = new Properties();
        try (InputStream s = Files.newInputStream(in.resolve(name + ".settings"))) {
            settings.load(s);
        }
        final List<JournalRecord> journal = JournalFile.read(in.resolve(name + ".journal"));
        final Map<String, PoolEngine> engines = new TreeMap<>();
        final Map<Integer, JournalApplier> appliers = new TreeMap<>();
        final DecisionBytes<PlacementDecision> decisionBytes = DecisionBytes.decisions();
        final DecisionBytes<NodeCommand> commandBytes = DecisionBytes.commands();
        try (DataOutputStream decisions = open(out.resolve(name + DECISIONS));
             DataOutputStream commands = open(out.resolve(name + COMMANDS));
             DataOutputStream snapshots = open(out.resolve(name + SNAPSHOTS));
             PrintWriter text = new PrintWriter(Files.newBufferedWriter(out.resolve(name + DECISIONS_TEXT),
                     StandardCharsets.UTF_8))) {
            for (int i = 0; i < journal.size(); i++) {
                final JournalRecord r = journal.get(i);
                final String pool = r.entry().getPool();
                final PoolEngine engine = engines.computeIfAbsent(pool, p -> new PoolEngine(config(settings, p)));
                final JournalApplier applier = appliers.computeIfAbsent(r.partition(), p -> JournalApplier.offline());
                final Applied a = applier.apply(engine, r.entry(), r.position());
                for (final PlacementDecision d : a.decisions()) {
                    record(decisions, decisionBytes.of(d));
                    text.println(d);
                }
                for (final NodeCommand c : a.commands()) {
                    record(commands, commandBytes.of(c));
                }
                if ((i + 1) % SNAPSHOT_EVERY == 0 || i == journal.size() - 1) {
                    record(snapshots, new EngineSnapshot(pool, r.partition(), r.offset(), r.timestampMs(),
                            engine.snapshot(), applier.jobBookSnapshot(engines.values())).toBytes());
                }
            }
        }
    }

    /** The records of one output file, in order. */
    static List<byte[]> records(final Path file) throws IOException {
        final List<byte[]> out = new ArrayList<>();
        try (DataInputStream in = new DataInputStream(Files.newInputStream(file))) {
            while (true) {
                final int length;
                try {
                    length = in.readInt();
                } catch (EOFException end) {
                    return out;
                }
                final byte[] b = new byte[length];
                in.readFully(b);
                out.add(b);
            }
        }
    }

    private static EngineConfig config(final Properties settings, final String pool) {
        final Map<String, String> s = new TreeMap<>();
        settings.stringPropertyNames().forEach(k -> s.put(k, settings.getProperty(k)));
        s.put("pool", pool);
        return EngineConfig.fromSettings(s);
    }

    private static DataOutputStream open(final Path file) throws IOException {
        final OutputStream o = Files.newOutputStream(file);
        return new DataOutputStream(new BufferedOutputStream(o));
    }

    private static void record(final DataOutputStream out, final byte[] b) throws IOException {
        out.writeInt(b.length);
        out.write(b);
    }
}
