mod scratch;
