package dev.tickwheel.server.store;

import dev.tickwheel.server.job.Job;
import dev.tickwheel.server.job.NewJob;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Durable storage of jobs. The store is the source of truth; nothing here knows about wheels or timers.
 *
 * <p>Every method is one transaction. Times are stored with millisecond precision: an {@link Instant} read back
 * equals the one written truncated to milliseconds.
 *
 * <p>Thread-safe.
 *
 * <p>Caveats: advancing a job's next trigger time (by a loader, through
 * {@link InstanceStore#createInstancesAndAdvanceJob}) is a compare-and-set on that field and does not bump
 * {@link Job#version()}; an {@link #update} that also sets the next trigger time therefore overwrites a concurrent
 * advance. That is safe: re-created schedule slots are skipped by the unique (job, scheduled trigger time) key.
 */
public interface JobStore {

    /**
     * Inserts a job, created and updated now, at version 0.
     *
     * @return the job as stored
     * @throws DuplicateIdException if the id is taken; nothing is written
     */
    default Job insert(NewJob job) {
        return insertAll(List.of(job)).get(0);
    }

    /** {@link #insert} into a namespace ({@code tw_job_namespace}, in the same transaction). */
    default Job insert(NewJob job, String namespace) {
        return insertAll(List.of(job), namespace).get(0);
    }

    /**
     * Inserts the job unless a job of its name exists, in one transaction serialised against every other such insert
     * on the store (on any member): two members declaring one job at once make one.
     *
     * @return the stored job of that name with the lowest id: the new one if it was inserted
     */
    Job insertUnlessNamed(NewJob job);

    /** The jobs named exactly {@code name}, by id. */
    List<Job> findByName(String name);

    /**
     * Inserts many jobs in one transaction with batched statements: all or none.
     *
     * @return the jobs as stored, in the order given
     * @throws DuplicateIdException if any id is taken; nothing is written
     */
    default List<Job> insertAll(List<NewJob> jobs) {
        return insertAll(jobs, dev.tickwheel.server.access.Namespaces.DEFAULT);
    }

    /** {@link #insertAll(List)} into a namespace, which must exist. */
    List<Job> insertAll(List<NewJob> jobs, String namespace);

    /**
     * Replaces the definition and next trigger time of a job if its stored version is still {@code job.version()}
     * (optimistic locking). Sets {@code updatedAt} to now and increments the version; {@code createdAt} is kept.
     *
     * @return the job as stored after the update, or empty if the job is gone or its version moved on
     */
    Optional<Job> update(Job job);

    /**
     * Deletes a job and, in the same transaction, cancels its waiting instances. Other instances stay as history.
     * Serialised with instance creation for this job, so no waiting instance of a deleted job is left behind.
     */
    JobDeletion delete(long jobId);

    /** The job with this id, if stored. */
    Optional<Job> get(long jobId);

    /** The stored jobs among {@code jobIds} (unknown ids are absent), read with one query per 1 000 ids. */
    java.util.Map<Long, Job> getAll(java.util.Collection<Long> jobIds);

    /**
     * A page of jobs ordered by (name, id), optionally only those whose name contains {@code nameContains} ignoring
     * case (a plain substring: {@code %}, {@code _} and {@code \} match themselves). Keyset-paged: each page is one
     * walk of the (name, id) index from the cursor on, however deep the walk has gone.
     *
     * @param nameContains the substring to look for, or null or empty for every job
     * @param after        where the previous page ended ({@link Page#nextCursor()}), or null for the first page
     * @param limit        page size, 1..10 000
     */
    default Page<Job, JobNameCursor> search(String nameContains, JobNameCursor after, int limit) {
        return search(nameContains, after, limit, null);
    }

    /** {@link #search(String, JobNameCursor, int)} among the jobs of one namespace (null: every namespace). */
    Page<Job, JobNameCursor> search(String nameContains, JobNameCursor after, int limit, String namespace);

    /**
     * Enabled jobs whose next trigger time is at or before {@code until}, ordered by (next trigger time, id), from
     * just after {@code after}. A loader walks all due jobs by passing {@link DueJobCursor#after} of the last job of
     * each page until a page comes back shorter than {@code limit}. Only jobs of {@code shards}: each job's loading
     * belongs to the owner of its shard ({@link Shards}).
     *
     * @param until  inclusive upper bound on the next trigger time
     * @param after  where the previous page ended, or null for the first page
     * @param limit  page size, 1..10 000
     * @param shards the shards whose jobs to return
     */
    List<Job> findDue(Instant until, DueJobCursor after, int limit, java.util.Collection<Integer> shards);

    /**
     * The jobs that keep their finished instances for a number of days of their own
     * ({@link dev.tickwheel.server.job.JobOperations#retentionDays()} set): job id to days. Read once per retention
     * run; such jobs are expected to be few, so this scans the job table rather than keep an index on it.
     */
    java.util.Map<Long, Integer> findRetentionOverrides();
}
