-- Run once by the postgres image when its data volume is empty (compose.yaml
-- mounts it into /docker-entrypoint-initdb.d). POSTGRES_DB (default lgos)
-- holds the LGOS checkpoints, store and run leases; the other services get a
-- database each, owned by POSTGRES_USER.
CREATE DATABASE hatchet;
CREATE DATABASE files;
CREATE DATABASE chainlit;
