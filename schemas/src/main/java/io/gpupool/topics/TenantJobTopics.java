package io.gpupool.topics;

import java.util.regex.Pattern;

/**
 * The job topics of tenants: {@code <jobs topic>.<tenant>} (default {@code gpupool.jobs.team-a}). Where tenant
 * topics are read ({@code scheduler --tenant-topics}), a job command written to one belongs to that tenant
 * whatever its payload says: the broker's ACLs decide who may write the topic, so the tenant comes from an
 * identity the broker checked, and a request naming another tenant is rejected. Tenant names for topics are
 * kept to lower-case letters, digits, '-' and '_' (no '.'), so that no tenant's topic name is the prefix of
 * another's topic name with a dot in between, and every name is a legal Kafka topic name.
 */
public final class TenantJobTopics {
    private static final Pattern TENANT = Pattern.compile("[a-z0-9][a-z0-9_-]{0,62}");

    private TenantJobTopics() {
    }

    /** Null when {@code tenant} can have a job topic, else why not. */
    public static String invalidTenant(final String tenant) {
        if (tenant == null || !TENANT.matcher(tenant).matches()) {
            return "tenant '" + tenant + "' cannot have a job topic: use 1-63 lower-case letters, digits, '-' or '_',"
                    + " starting with a letter or digit";
        }
        return null;
    }

    /** The job topic of {@code tenant}; an invalid tenant name is an error that says which names work. */
    public static String topic(final String jobsTopic, final String tenant) {
        final String invalid = invalidTenant(tenant);
        if (invalid != null) {
            throw new IllegalArgumentException(invalid);
        }
        return jobsTopic + "." + tenant;
    }

    /** The tenant whose job topic {@code topic} is, or null when it is no tenant's (the shared jobs topic included). */
    public static String tenantOf(final String jobsTopic, final String topic) {
        if (topic == null || !topic.startsWith(jobsTopic + ".")) {
            return null;
        }
        final String tenant = topic.substring(jobsTopic.length() + 1);
        return invalidTenant(tenant) == null ? tenant : null;
    }

    /** Every tenant job topic of this jobs topic, and nothing else (not the jobs topic itself). */
    public static Pattern pattern(final String jobsTopic) {
        return Pattern.compile(Pattern.quote(jobsTopic + ".") + TENANT.pattern());
    }

    /** How a tenant's job topic is created: as the jobs topic is (partitions, replication, retention). */
    public static TopicSpec spec(final TopicCatalog catalog, final String tenant) {
        final TopicSpec jobs = catalog.spec(Topic.JOBS);
        return jobs.withName(topic(jobs.name(), tenant));
    }
}
