/** Name lists the rules decide on, kept apart so docs and tests can cite them. */

/** System catalogs: reading them dumps the schema or server state. */
const CATALOG_TABLES = new Set([
  'sqlite_master', 'sqlite_schema', 'sqlite_temp_master', 'sqlite_temp_schema', 'sqlite_sequence', 'sqlite_stat1',
  'sqlite_stat4', 'sysobjects', 'syscolumns', 'sysusers', 'syslogins', 'sysdatabases', 'all_tables', 'all_users',
  'dba_users', 'user_tables',
]);
const CATALOG_SCHEMAS = new Set(['information_schema', 'pg_catalog', 'mysql', 'performance_schema', 'sys', 'master', 'msdb',
  // Snowflake's account database and its views of users, logins and queries
  'snowflake', 'account_usage', 'reader_account_usage', 'organization_usage', 'data_sharing_usage']);

export function isCatalog(db: string | null, table: string): boolean {
  const t = table.toLowerCase();
  if (db && CATALOG_SCHEMAS.has(db.toLowerCase())) return true;
  return CATALOG_TABLES.has(t) || t.startsWith('pg_') || t.startsWith('sqlite_');
}

/**
 * Time-based, file, network and code-loading functions: their only use in a query the gateway
 * admits would be blind injection, file exfiltration or code loading.
 */
export const DANGEROUS_FUNCTIONS = new Set([
  'sleep', 'pg_sleep', 'pg_sleep_for', 'pg_sleep_until', 'benchmark', 'waitfor',
  'load_file', 'load_extension', 'readfile', 'writefile', 'edit', 'fts3_tokenizer',
  'pg_read_file', 'pg_read_binary_file', 'pg_ls_dir', 'pg_stat_file', 'lo_import', 'lo_export',
  'dblink', 'dblink_exec', 'dblink_connect', 'xp_cmdshell', 'xp_dirtree', 'xp_fileexist', 'xp_regread',
  'sys_exec', 'sys_eval', 'openrowset', 'opendatasource', 'openquery', 'sp_oacreate', 'sp_execute_external_script',
  // PostgreSQL functions that run the SQL text they are given: the rules never see that query
  'query_to_xml', 'query_to_xmlschema', 'query_to_xml_and_xmlschema', 'cursor_to_xml', 'cursor_to_xmlschema', 'ts_stat',
  // … or dump whole tables, schemas or databases by name, catalogs included
  'table_to_xml', 'table_to_xmlschema', 'table_to_xml_and_xmlschema', 'schema_to_xml', 'schema_to_xmlschema',
  'schema_to_xml_and_xmlschema', 'database_to_xml', 'database_to_xmlschema', 'database_to_xml_and_xmlschema',
  // server settings (the function form of the pg_settings catalog), other sessions, server files, large objects
  'current_setting', 'set_config', 'pg_terminate_backend', 'pg_cancel_backend', 'pg_reload_conf', 'pg_rotate_logfile',
  'pg_ls_logdir', 'pg_ls_waldir', 'pg_ls_tmpdir', 'pg_ls_archive_statusdir', 'pg_file_write', 'pg_file_rename',
  'pg_file_unlink', 'pg_logdir_ls', 'lo_from_bytea', 'lo_get', 'lo_put', 'lo_create', 'lo_creat', 'lo_unlink', 'lo_open',
  'loread', 'lowrite', 'dblink_send_query', 'dblink_open', 'dblink_fetch', 'dblink_get_result', 'setval',
  // MySQL: an invalid XPath makes these raise an error that carries their argument out (error-based
  // exfiltration, `EXTRACTVALUE(1, CONCAT(0x7e, @@version))`); a named lock outlives the query
  'extractvalue', 'updatexml', 'get_lock',
]);

/**
 * Credential columns (documented rule): a column whose name, split into words, contains one of
 * these words or two consecutive words of a joined form. A name splits on non-alphanumerics and,
 * where its spelling marks them, on camelCase and letter/digit boundaries (`passwordHash`,
 * `APIKey` → api key, `token2`); it is also read as the lower-cased whole, so `PassWord` stays
 * `password`. Words are whole: `secretary`, `tokenizer`, `pwdate` are not credentials. `salary`
 * and other sensitive-but-not-credential data are not credentials: the gateway blocks reading
 * secrets that authenticate, not business data.
 */
const CREDENTIAL_WORDS = new Set(['password', 'passwd', 'pwd', 'passphrase', 'secret', 'token', 'credential', 'credentials', 'apikey', 'privatekey']);
const CREDENTIAL_JOINED = ['api_key', 'private_key', 'secret_key', 'access_key', 'pass_hash', 'pw_hash'];

/** first word → the second words that make a joined form with it */
const JOINED = new Map<string, Set<string>>();
for (const j of CREDENTIAL_JOINED) {
  const [a, b] = j.split('_');
  if (!JOINED.has(a)) JOINED.set(a, new Set());
  JOINED.get(a)!.add(b);
}
const NON_ALNUM = /[^a-z0-9]+/;

function credentialWords(words: string[]): boolean {
  for (let i = 0; i < words.length; i++) {
    if (CREDENTIAL_WORDS.has(words[i])) return true;
    if (i + 1 < words.length && JOINED.get(words[i])?.has(words[i + 1])) return true;
  }
  return false;
}

/**
 * The boundaries only the spelling shows, marked with a space before lower-casing: lower or digit
 * to upper (`passwordHash`), the end of a capital run before a capitalised word (`APIKey`), and
 * letter to digit or digit to letter (`token2`, `2faSecret`).
 */
function spellingWords(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1 $2')
    .replace(/([A-Za-z])([0-9])/g, '$1 $2')
    .replace(/([0-9])([A-Za-z])/g, '$1 $2');
}

export function isCredentialColumn(name: string): boolean {
  if (credentialWords(name.toLowerCase().split(NON_ALNUM))) return true;
  const spelled = spellingWords(name);
  return spelled !== name && credentialWords(spelled.toLowerCase().split(NON_ALNUM));
}
