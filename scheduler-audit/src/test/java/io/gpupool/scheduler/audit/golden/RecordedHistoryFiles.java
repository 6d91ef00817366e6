package io.gpupool.scheduler.audit.golden;

import io.gpupool.avro.JobEvent;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.audit.reality.ReportedEvent;
import io.gpupool.scheduler.journal.JournalRecord;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.apache.avro.Schema;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.io.JsonEncoder;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;

/**
 * A recorded history as files: the journal, the decisions, the node commands and the job events of a
 * real run, one record per line in Avro's JSON encoding (gzipped), each with the writer schema it was
 * recorded with beside it ({@code NAME.avsc}). Read back with today's classes through Avro schema
 * resolution, so a history recorded before a (BACKWARD-compatible) schema change still reads.
 * Journal and event lines are {@code partition TAB offset TAB record}.
 */
public final class RecordedHistoryFiles {
    static final String JOURNAL = "journal";
    static final String DECISIONS = "decisions";
    static final String COMMANDS = "node-commands";
    static final String EVENTS = "job-events";

    /** What one recorded history holds. */
    public record History(List<JournalRecord> journal, List<PlacementDecision> decisions, List<NodeCommand> commands,
                          List<ReportedEvent> events) {
    }

    private RecordedHistoryFiles() {
    }

    public static void write(final Path dir, final History h) throws IOException {
        Files.createDirectories(dir);
        writeSchema(dir, JOURNAL, JournalEntry.getClassSchema());
        writeSchema(dir, DECISIONS, PlacementDecision.getClassSchema());
        writeSchema(dir, COMMANDS, NodeCommand.getClassSchema());
        writeSchema(dir, EVENTS, JobEvent.getClassSchema());
        lines(dir, JOURNAL, h.journal(), r -> r.partition() + "\t" + r.offset() + "\t" + json(r.entry()));
        lines(dir, DECISIONS, h.decisions(), RecordedHistoryFiles::json);
        lines(dir, COMMANDS, h.commands(), RecordedHistoryFiles::json);
        lines(dir, EVENTS, h.events(), e -> e.partition() + "\t" + e.offset() + "\t" + json(e.event()));
    }

    /** The history under {@code resource} (a class-path folder, e.g. "/golden/history-1"). */
    public static History read(final String resource) {
        return new History(
                read(resource, JOURNAL, JournalEntry.getClassSchema(), (pos, e) -> new JournalRecord(
                        Integer.parseInt(pos[0]), Long.parseLong(pos[1]), (JournalEntry) e)),
                read(resource, DECISIONS, PlacementDecision.getClassSchema(), (pos, d) -> (PlacementDecision) d),
                read(resource, COMMANDS, NodeCommand.getClassSchema(), (pos, c) -> (NodeCommand) c),
                read(resource, EVENTS, JobEvent.getClassSchema(), (pos, e) -> new ReportedEvent(
                        Integer.parseInt(pos[0]), Long.parseLong(pos[1]), (JobEvent) e)));
    }

    private static void writeSchema(final Path dir, final String name, final Schema s) throws IOException {
        Files.writeString(dir.resolve(name + ".avsc"), s.toString(true) + "\n");
    }

    private static <T> void lines(final Path dir, final String name, final List<T> records,
                                  final Function<T, String> line) throws IOException {
        try (BufferedWriter w = new BufferedWriter(new OutputStreamWriter(new GZIPOutputStream(
                Files.newOutputStream(dir.resolve(name + ".jsonl.gz"))), StandardCharsets.UTF_8))) {
            for (final T r : records) {
                w.write(line.apply(r));
                w.write('\n');
            }
        }
    }

    private static String json(final SpecificRecord r) {
        try {
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            final JsonEncoder enc = EncoderFactory.get().jsonEncoder(r.getSchema(), out);
            new SpecificDatumWriter<SpecificRecord>(r.getSchema()).write(r, enc);
            enc.flush();
            return out.toString(StandardCharsets.UTF_8).replace('\n', ' ');
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static <T> List<T> read(final String resource, final String name, final Schema reader,
                                    final BiFunction<String[], Object, T> make) {
        final Schema writer = new Schema.Parser().parse(text(resource + "/" + name + ".avsc"));
        final SpecificDatumReader<Object> datum = new SpecificDatumReader<>(writer, reader);
        final List<T> out = new ArrayList<>();
        try (InputStream in = stream(resource + "/" + name + ".jsonl.gz");
             BufferedReader r = new BufferedReader(new InputStreamReader(new GZIPInputStream(in), StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                final boolean positioned = name.equals(JOURNAL) || name.equals(EVENTS);
                final String[] parts = positioned ? line.split("\t", 3) : new String[] {line};
                final String json = parts[parts.length - 1];
                out.add(make.apply(parts, datum.read(null, DecoderFactory.get().jsonDecoder(writer, json))));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(resource + "/" + name + ": " + e.getMessage(), e);
        }
        return out;
    }

    private static String text(final String path) {
        try (InputStream in = stream(path)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static InputStream stream(final String path) {
        final InputStream in = RecordedHistoryFiles.class.getResourceAsStream(path);
        if (in == null) {
            throw new IllegalStateException("no recorded history at " + path + " on the class path");
        }
        return in;
    }
}
