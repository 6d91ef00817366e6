package io.gpupool.serde;

import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecordBase;

/**
 * Test only: a record whose one field is an array of nulls, items that take no bytes, so that a
 * count says nothing about the bytes that follow it. None of our schemas has such an array
 * (BoundedDecodingTest checks); written by hand as the Avro compiler would.
 */
public final class Nulls extends SpecificRecordBase {
    public static final Schema SCHEMA$ = new Schema.Parser().parse("{\"type\": \"record\", \"name\": \"Nulls\","
            + " \"namespace\": \"io.gpupool.serde\", \"fields\": [{\"name\": \"nulls\","
            + " \"type\": {\"type\": \"array\", \"items\": \"null\"}, \"default\": []}]}");

    private List<Void> nulls;

    public static Schema getClassSchema() {
        return SCHEMA$;
    }

    @Override
    public Schema getSchema() {
        return SCHEMA$;
    }

    @Override
    public Object get(final int field) {
        if (field != 0) {
            throw new IndexOutOfBoundsException("Nulls has one field, not " + field);
        }
        return nulls;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void put(final int field, final Object value) {
        if (field != 0) {
            throw new IndexOutOfBoundsException("Nulls has one field, not " + field);
        }
        nulls = (List<Void>) value;
    }

    public List<Void> getNulls() {
        return nulls;
    }
}
