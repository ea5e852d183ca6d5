-- catalog tables (one SQL execution each)
CREATE TABLE IF NOT EXISTS nation USING parquet LOCATION '/tmp/lakeaudit-lineage/warehouse/nation';
CREATE TABLE IF NOT EXISTS customer USING parquet LOCATION '/tmp/lakeaudit-lineage/warehouse/customer';
CREATE TABLE IF NOT EXISTS orders USING parquet LOCATION '/tmp/lakeaudit-lineage/warehouse/orders';
CREATE TABLE IF NOT EXISTS lineitem USING parquet LOCATION '/tmp/lakeaudit-lineage/warehouse/lineitem';
CREATE TABLE IF NOT EXISTS supplier USING parquet LOCATION '/tmp/lakeaudit-lineage/warehouse/supplier';
CREATE TABLE IF NOT EXISTS part USING parquet LOCATION '/tmp/lakeaudit-lineage/warehouse/part';
CREATE TABLE IF NOT EXISTS returns USING parquet LOCATION '/tmp/lakeaudit-lineage/warehouse/returns';
CREATE TABLE IF NOT EXISTS date_dim USING parquet LOCATION '/tmp/lakeaudit-lineage/warehouse/date_dim';
CREATE TABLE IF NOT EXISTS sales USING parquet LOCATION '/tmp/lakeaudit-lineage/warehouse/sales';
CREATE TABLE IF NOT EXISTS orders_b (o_orderkey BIGINT, o_custkey BIGINT, o_orderstatus STRING, o_totalprice DOUBLE, o_orderdate DATE, o_orderpriority STRING, o_clerk STRING, o_shippriority INT, o_comment STRING) USING parquet CLUSTERED BY (o_orderkey) SORTED BY (o_orderkey) INTO 4 BUCKETS LOCATION '/tmp/lakeaudit-lineage/warehouse/orders_b';
CREATE TABLE IF NOT EXISTS lineitem_b (l_orderkey BIGINT, l_partkey BIGINT, l_suppkey BIGINT, l_linenumber INT, l_quantity DOUBLE, l_extendedprice DOUBLE, l_discount DOUBLE, l_tax DOUBLE, l_returnflag STRING, l_linestatus STRING, l_shipdate DATE, l_commitdate DATE, l_receiptdate DATE, l_shipinstruct STRING, l_shipmode STRING, l_comment STRING) USING parquet CLUSTERED BY (l_orderkey) SORTED BY (l_orderkey) INTO 4 BUCKETS LOCATION '/tmp/lakeaudit-lineage/warehouse/lineitem_b';
CREATE TABLE IF NOT EXISTS order_parts USING parquet LOCATION '/tmp/lakeaudit-lineage/warehouse/order_parts';
ALTER TABLE sales RECOVER PARTITIONS;
CREATE TABLE cust_revenue (c_custkey BIGINT, c_mktsegment STRING, revenue DOUBLE) USING parquet;

-- DataFrame API; createOrReplaceTempView logs one CreateViewCommand execution each
-- orders_p = spark.read.parquet('/tmp/lakeaudit-lineage/warehouse/orders')
-- lineitem_p = spark.read.parquet('/tmp/lakeaudit-lineage/warehouse/lineitem')

-- cached DataFrames: spark.sql(text).cache().createOrReplaceTempView(name), one execution each
-- big_orders = SELECT o_orderkey, o_custkey, o_totalprice, o_orderdate FROM orders WHERE o_totalprice > 100000
-- cust_nation = SELECT c.c_custkey, c.c_mktsegment, n.n_name, n.n_regionkey FROM customer c JOIN nation n ON c.c_nationkey = n.n_nationkey

-- no SQL execution: spark.udf.register('norm_key', lambda k: k, LongType())
