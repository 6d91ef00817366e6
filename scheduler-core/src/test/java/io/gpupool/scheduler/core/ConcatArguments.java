package io.gpupool.scheduler.core;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The argument types of a class's string concatenations, read off its class file's constant pool.
 * javac compiles {@code "x" + d} to an invokedynamic of {@code makeConcatWithConstants}, and ArchUnit
 * models no invokedynamic call, so a double concatenated into a string (formatted by the JDK's
 * Double.toString, which changed in JDK 19) is invisible to its rules. The call's descriptor is a
 * NameAndType entry of the constant pool, so reading the pool is enough to see the types.
 */
public final class ConcatArguments {
    private static final int MAGIC = 0xCAFEBABE;
    private static final String CONCAT = "makeConcatWithConstants";

    private ConcatArguments() {
    }

    /** The parameter descriptors of each string concatenation in the class file at {@code classFile}. */
    public static List<String> of(final URI classFile) {
        try (InputStream raw = classFile.toURL().openStream(); DataInputStream in = new DataInputStream(raw)) {
            if (in.readInt() != MAGIC) {
                throw new IOException("not a class file");
            }
            in.readInt(); // minor and major version
            final int count = in.readUnsignedShort();
            final Map<Integer, String> utf8 = new HashMap<>();
            final List<int[]> nameAndTypes = new ArrayList<>();
            for (int i = 1; i < count; i++) {
                final int tag = in.readUnsignedByte();
                switch (tag) {
                    case 1 -> utf8.put(i, in.readUTF());
                    case 12 -> nameAndTypes.add(new int[] {in.readUnsignedShort(), in.readUnsignedShort()});
                    case 3, 4, 9, 10, 11, 17, 18 -> in.skipNBytes(4);
                    case 5, 6 -> {
                        in.skipNBytes(8);
                        i++; // a long or double takes two entries
                    }
                    case 7, 8, 16, 19, 20 -> in.skipNBytes(2);
                    case 15 -> in.skipNBytes(3);
                    default -> throw new IOException("unknown constant pool tag " + tag + " at entry " + i);
                }
            }
            final List<String> out = new ArrayList<>();
            for (final int[] nt : nameAndTypes) {
                if (CONCAT.equals(utf8.get(nt[0]))) {
                    final String d = utf8.get(nt[1]);
                    out.add(d.substring(1, d.indexOf(')')));
                }
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(classFile + ": " + e.getMessage(), e);
        }
    }

    /** Whether a parameter descriptor list takes a double or float, primitive or boxed. */
    public static boolean takesFloatingPoint(final String parameters) {
        for (int i = 0; i < parameters.length(); i++) {
            final char c = parameters.charAt(i);
            if (c == 'L') {
                final int end = parameters.indexOf(';', i);
                final String type = parameters.substring(i + 1, end);
                if (type.equals("java/lang/Double") || type.equals("java/lang/Float")) {
                    return true;
                }
                i = end;
            } else if (c == '[') {
                while (parameters.charAt(i + 1) == '[') {
                    i++;
                }
                if (parameters.charAt(i + 1) != 'L') {
                    i++; // an array of a primitive prints as [D@hash, not as numbers
                } else {
                    i = parameters.indexOf(';', i);
                }
            } else if (c == 'D' || c == 'F') {
                return true;
            }
        }
        return false;
    }
}
