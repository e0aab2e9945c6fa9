-- Tickwheel store schema, version 12: named calendars of excluded days (JobCalendar), and the calendar a job's
-- schedule skips the days of.

CREATE TABLE tw_calendar (
    name              VARCHAR(100)   NOT NULL PRIMARY KEY,
    -- The zone whose days the dates are.
    zone              VARCHAR(64)    NOT NULL,
    -- ISO dates, comma-separated ('' for none).
    excluded_dates    VARCHAR(40960) NOT NULL,
    -- Day names (MONDAY..SUNDAY), comma-separated ('' for none).
    excluded_weekdays VARCHAR(80)    NOT NULL,
    created_at_ms     BIGINT         NOT NULL
);

-- A calendar in use cannot be deleted (JdbcCalendarStore checks first; the key holds under any race).
ALTER TABLE tw_job ADD COLUMN calendar_name VARCHAR(100);
ALTER TABLE tw_job ADD CONSTRAINT tw_job_calendar_fk FOREIGN KEY (calendar_name) REFERENCES tw_calendar (name);
