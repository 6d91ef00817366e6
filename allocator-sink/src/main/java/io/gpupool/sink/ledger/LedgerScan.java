package io.gpupool.sink.ledger;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a ledger file: its whole records in order, and what follows the last of them when that is
 * not a whole record (an append torn by a crash or a power loss). Reads {@link RecordFrame framed}
 * records and the plain JSON lines that ledgers held before records were framed (only before the
 * first framed record: the sink rewrites such a ledger framed when it opens it). Bytes that are not
 * a whole record but are followed by whole records are no torn append, since nothing is appended
 * after a torn record before it is cut off: the file is damaged, and reading it is an error naming
 * the file and the byte offset.
 */
final class LedgerScan {

    private static final int PREVIEW_CHARS = 160;
    private static final Pattern COMMAND_ID = Pattern.compile("\"commandId\":\"([^\"]*)\"");
    private static final Pattern KIND = Pattern.compile("\"kind\":\"([^\"]*)\"");

    private LedgerScan() {
    }

    /** A whole record; {@code legacy} when it is a plain JSON line of the format before framing. */
    record Record(long offset, LedgerEntry entry, boolean legacy) {
    }

    /** What follows the last whole record: {@code length} bytes from {@code offset}, and why they are no record. */
    record Torn(long offset, long length, String problem, String preview) {

        /** What was lost, in words: the kind and command of the record, when the fragment still shows them. */
        String lost() {
            final Matcher id = COMMAND_ID.matcher(preview);
            if (!id.find()) {
                return "a fragment too short to name its command";
            }
            final Matcher kind = KIND.matcher(preview);
            return "the " + (kind.find() ? "'" + kind.group(1) + "' " : "") + "record of command " + id.group(1);
        }
    }

    /** The file's whole records, and its torn tail if it has one. */
    record Result(List<Record> records, Optional<Torn> tail) {
        boolean hasLegacy() {
            return records.stream().anyMatch(Record::legacy);
        }
    }

    static Result scan(final Path file) throws IOException {
        if (!Files.exists(file)) {
            return new Result(List.of(), Optional.empty());
        }
        final byte[] bytes = Files.readAllBytes(file);
        final List<Record> records = new ArrayList<>();
        boolean framedSeen = false;
        int at = 0;
        while (at < bytes.length) {
            if (bytes[at] == '\n') {
                at++; // a blank line: the format before framing allowed them
                continue;
            }
            final Attempt a = read(bytes, at, !framedSeen);
            if (a.problem() != null) {
                final Optional<Integer> later = nextWholeRecord(bytes, at, framedSeen);
                if (later.isPresent()) {
                    throw new IOException("ledger " + file + " is damaged at byte offset " + at + " (" + a.problem()
                            + "), and whole records follow at byte offset " + later.get()
                            + ": this is no torn last append; move the file away or repair it by hand");
                }
                return new Result(records, Optional.of(new Torn(at, bytes.length - at, a.problem(), preview(bytes, at))));
            }
            records.add(new Record(at, a.entry(), a.legacy()));
            framedSeen |= !a.legacy();
            at = a.end();
        }
        return new Result(records, Optional.empty());
    }

    private record Attempt(LedgerEntry entry, int end, boolean legacy, String problem) {
        static Attempt bad(final String problem) {
            return new Attempt(null, -1, false, problem);
        }
    }

    private static Attempt read(final byte[] bytes, final int at, final boolean legacyAllowed) {
        if (bytes[at] == '{' && legacyAllowed) {
            int lf = at;
            while (lf < bytes.length && bytes[lf] != '\n') {
                lf++;
            }
            if (lf == bytes.length) {
                return Attempt.bad("a JSON line without its line end");
            }
            try {
                return new Attempt(LedgerEntry.fromJson(bytes, at, lf - at), lf + 1, true, null);
            } catch (final IOException e) {
                return Attempt.bad("a JSON line that does not parse: " + e.getMessage());
            }
        }
        final RecordFrame.Read r = RecordFrame.decode(bytes, at);
        if (!r.whole()) {
            return Attempt.bad(r.problem());
        }
        try {
            return new Attempt(LedgerEntry.fromJson(r.payload(), 0, r.payload().length), r.end(), false, null);
        } catch (final IOException e) {
            return Attempt.bad("a record whose checksum is right but whose JSON does not parse: " + e.getMessage());
        }
    }

    /** The offset of a whole record that starts a line after {@code from}, if any. */
    private static Optional<Integer> nextWholeRecord(final byte[] bytes, final int from, final boolean framedSeen) {
        for (int i = from + 1; i < bytes.length; i++) {
            if (bytes[i - 1] == '\n' && bytes[i] != '\n' && read(bytes, i, !framedSeen).problem() == null) {
                return Optional.of(i);
            }
        }
        return Optional.empty();
    }

    private static String preview(final byte[] bytes, final int at) {
        final String s = new String(bytes, at, Math.min(bytes.length - at, PREVIEW_CHARS * 4), StandardCharsets.UTF_8);
        final StringBuilder out = new StringBuilder();
        for (int i = 0; i < s.length() && out.length() < PREVIEW_CHARS; i++) {
            final char c = s.charAt(i);
            out.append(c >= 0x20 && c != 0x7f && c != '\uFFFD' ? c : '.');
        }
        return out.toString();
    }
}
