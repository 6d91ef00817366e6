package io.gpupool.scheduler.core;

import java.io.DataInputStream;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a snapshot's enum values map to constants: by name. From version 6 a snapshot starts with a
 * name table, every enum it holds under a fixed key with its constants' names in ordinal order, and
 * writes each value as its index in that table (one byte). A reader maps the index through the
 * name, so reordering or adding a constant in a later build cannot change what an old snapshot
 * means; a constant that was removed fails only the snapshot that uses it, naming it. Versions 5
 * and older wrote bare ordinals: {@link SnapshotLegacyOrdinals} maps them the same way, by the names
 * those ordinals had.
 */
final class SnapshotEnums {
    /**
     * The enums a snapshot holds, under the keys the format names them by: not the class names,
     * which get renamed (LinkLayer became HcaLinkLayer) without the bytes meaning anything else.
     */
    private static final Map<String, Class<? extends Enum<?>>> TYPES = new LinkedHashMap<>();

    static {
        TYPES.put("hca-link-layer", HcaLinkLayer.class);
        TYPES.put("job-state", JobState.class);
        TYPES.put("priority-class", PriorityClass.class);
        TYPES.put("gang-scope", GangScope.class);
        TYPES.put("network", Network.class);
        TYPES.put("reason-code", ReasonCode.class);
        TYPES.put("decision-kind", DecisionKind.class);
        for (final Class<? extends Enum<?>> t : TYPES.values()) {
            if (t.getEnumConstants().length > 256) {
                throw new ExceptionInInitializerError(t.getSimpleName() + " has more constants than a snapshot byte indexes");
            }
        }
    }

    /** One enum's constants by snapshot index (null: a name this build does not know). */
    private record Table(String key, List<String> names, Enum<?>[] constants, boolean shortIndex) {
    }

    private final Map<Class<?>, Table> tables;

    private SnapshotEnums(final Map<Class<?>, Table> tables) {
        this.tables = tables;
    }

    /** Writes the name table of this build's enums (values are then written as ordinals, {@link SnapshotOut#constant}). */
    static void writeTable(final SnapshotOut out) throws IOException {
        out.writeInt(TYPES.size());
        for (final Map.Entry<String, Class<? extends Enum<?>>> t : TYPES.entrySet()) {
            out.str(t.getKey());
            final Enum<?>[] constants = t.getValue().getEnumConstants();
            out.writeInt(constants.length);
            for (final Enum<?> c : constants) {
                out.str(c.name());
            }
        }
    }

    /** Reads a version 6 name table. */
    static SnapshotEnums readTable(final SnapshotIn in) throws IOException {
        final Map<String, List<String>> names = new LinkedHashMap<>();
        final int types = in.readInt();
        for (int i = 0; i < types; i++) {
            final String key = in.str();
            if (!TYPES.containsKey(key)) {
                throw new IOException("snapshot names enum '" + key + "', which this build does not know");
            }
            names.put(key, in.names());
        }
        return byNames(names, null);
    }

    /**
     * The mapping for snapshots that name each enum's constants in index order, {@code names} by
     * format key; the enum under {@code shortIndexKey} (or none) has a two-byte index.
     */
    static SnapshotEnums byNames(final Map<String, List<String>> names, final String shortIndexKey) {
        final Map<Class<?>, Table> tables = new LinkedHashMap<>();
        names.forEach((key, list) -> {
            final Class<? extends Enum<?>> type = TYPES.get(key);
            if (type == null) {
                throw new IllegalArgumentException("no snapshot enum under the key " + key);
            }
            final Map<String, Enum<?>> known = new LinkedHashMap<>();
            for (final Enum<?> c : type.getEnumConstants()) {
                known.put(c.name(), c);
            }
            final Enum<?>[] constants = new Enum<?>[list.size()];
            for (int i = 0; i < constants.length; i++) {
                constants[i] = known.get(list.get(i));
            }
            tables.put(type, new Table(key, List.copyOf(list), constants, key.equals(shortIndexKey)));
        });
        return new SnapshotEnums(tables);
    }

    <E extends Enum<E>> E read(final DataInputStream in, final Class<E> type) throws IOException {
        final Table t = tables.get(type);
        if (t == null) {
            throw new IOException("snapshot has no name table for " + type.getSimpleName());
        }
        final int i = t.shortIndex() ? in.readShort() : in.readUnsignedByte();
        if (i < 0 || i >= t.constants().length) {
            throw new IOException(t.key() + " index " + i + " out of range (the snapshot names " + t.constants().length + ")");
        }
        final Enum<?> c = t.constants()[i];
        if (c == null) {
            throw new IOException("the snapshot's " + t.key() + " '" + t.names().get(i) + "' is not known to this build");
        }
        return type.cast(c);
    }
}
